//! The committed C header declares the ABI and nothing else.
#![allow(clippy::unwrap_used)] // tests unwrap: a failure is the test failing

#[test]
fn the_header_declares_only_fc_names_and_the_abi_version_agrees() {
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/forgecore.h")).unwrap();
    let expected = format!("#define FC_ABI_VERSION {}", forgecore::FC_ABI_VERSION);
    assert!(header.contains(&expected), "the header's FC_ABI_VERSION differs from the library's");
    assert_eq!(forgecore::ffi::fc_abi_version(), forgecore::FC_ABI_VERSION);
    for line in header.lines() {
        let line = line.trim();
        let declared = if let Some(rest) = line.strip_prefix("#define ") {
            rest.split_whitespace().next()
        } else if let Some(rest) = line.strip_prefix("typedef struct ") {
            rest.split_whitespace().next()
        } else if line.contains("(*") {
            // A function-pointer parameter (the callback of fc_repository_archive_write).
            None
        } else if line.ends_with('(')
            || (line.contains('(') && !line.starts_with("//") && !line.starts_with('*') && !line.starts_with("/*"))
        {
            line.split('(').next().and_then(|head| head.rsplit([' ', '*']).next())
        } else {
            None
        };
        if let Some(name) = declared {
            assert!(
                name.starts_with("fc_") || name.starts_with("FC_") || name == "FORGECORE_H",
                "the header declares {name:?}, which is not part of the ABI: {line}"
            );
        }
    }
}
