//! Links the `weft` command as a position-dependent executable: it is 110 MB
//! with LLVM inside, and as a PIE the dynamic loader applied 122,543
//! relocations at every start (10 ms of page faults and relocation before
//! `main`, which `weft opt` pays on every file). Only the binaries are
//! affected; the runtime staticlib stays position-independent.
fn main() {
    println!("cargo:rustc-link-arg-bins=-no-pie");
    println!("cargo:rerun-if-changed=build.rs");
}
