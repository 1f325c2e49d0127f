//! Tells the tests whether the third-party corpora lie beside this clone
//! (`../shared/data`): when they do, the `shared_data` cfg is set and the
//! tests over them run with plain `cargo test`; when they do not, those tests
//! are ignored, and the test summary shows them as ignored with the reason.
//! Nothing else is built differently.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(shared_data)");
    println!("cargo::rerun-if-changed=build.rs");
    let data = Path::new("../shared/data");
    if data.is_dir() {
        println!("cargo::rustc-cfg=shared_data");
        // Reruns when the folder changes or goes away. Its later arrival is
        // not noticed (watching a missing path would rebuild every time): the
        // tests stay ignored until `touch build.rs`, and their reason says so.
        println!("cargo::rerun-if-changed=../shared/data");
    }
}
