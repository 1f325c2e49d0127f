//! Tells the tests whether the real third-party corpora are beside the clone
//! (`../shared/data`, never shipped in this repo): without them, the tests
//! over real data are marked ignored, saying why, instead of passing empty.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(shared_data_absent)");
    println!("cargo::rerun-if-changed=build.rs");
    let data = std::path::Path::new("../shared/data");
    if data.is_dir() {
        println!("cargo::rerun-if-changed=../shared/data");
    } else {
        println!("cargo::rustc-cfg=shared_data_absent");
    }
}
