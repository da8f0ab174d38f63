//! Generates `include/forgecore.h` from the C exports with the pinned cbindgen.
//! The header is committed; `make test` checks that regenerating it changes nothing.

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
}
