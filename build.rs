//! Generates `include/forgecore.h` from the C exports with the pinned cbindgen.
//! The header is committed; `make test` checks that regenerating it changes nothing.
//!
//! On ELF targets the shared library's soname carries the C ABI version, `libforgecore.so.N`
//! for `FC_ABI_VERSION` N, as read from the generated header: a program linked against it
//! keeps loading any later build of the same ABI, and refuses (at load time) one of another.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=src/ffi");
    println!("cargo:rerun-if-changed=src/lib.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let crate_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(Path::new(&crate_dir).join("cbindgen.toml"))
        .expect("cbindgen.toml is readable and valid");
    let bindings = cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("the C exports can be described by cbindgen");
    let header = Path::new(&crate_dir).join("include/forgecore.h");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    // Only touch the file when it changes, so an unchanged header keeps its timestamp.
    if std::fs::read(&header).ok().as_deref() != Some(generated.as_slice()) {
        std::fs::create_dir_all(header.parent().expect("header has a parent")).expect("include/ is writable");
        std::fs::write(&header, &generated).expect("include/forgecore.h is writable");
    }
    let abi = abi_version(&String::from_utf8_lossy(&generated));
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let elf = std::env::var("CARGO_CFG_TARGET_FAMILY").is_ok_and(|family| family == "unix")
        && !matches!(os.as_str(), "macos" | "ios" | "tvos" | "watchos" | "visionos");
    if elf {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libforgecore.so.{abi}");
    }
}

/// `N` of the header's `#define FC_ABI_VERSION N`.
fn abi_version(header: &str) -> u32 {
    header
        .lines()
        .find_map(|line| line.strip_prefix("#define FC_ABI_VERSION "))
        .and_then(|value| value.trim().parse().ok())
        .expect("the generated header defines FC_ABI_VERSION as a number")
}
