//! Writes include/rootweave.h from the crate's `extern "C"` functions (cbindgen), and gives
//! the shared library the SONAME it is installed under (`librootweave.so.<major>`).

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets the version");
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").expect("cargo sets the version");
    // Before 1.0 a minor version may break the ABI, as Cargo's own rules say.
    let abi = if major == "0" {
        format!("0.{minor}")
    } else {
        major
    };
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librootweave.so.{abi}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml"))
        .expect("cbindgen.toml is readable");
    let header = cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("the C header is generated from src/");
    // Written only when it changed, so that builds do not touch the file needlessly.
    let path = format!("{dir}/include/rootweave.h");
    let mut bytes = Vec::new();
    header.write(&mut bytes);
    if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
        std::fs::write(&path, bytes).expect("include/rootweave.h is writable");
    }
}
