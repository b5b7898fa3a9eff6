//! Builds the bridge to the XRootD client library when the feature `xrootd` is on and the
//! library's headers are found (`XROOTD_INCLUDE_DIR`, else `/usr/include/xrootd`); without
//! them, `root://` URLs give an error that says how to get the library.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(rootweave_xrootd)");
    println!("cargo::rerun-if-env-changed=XROOTD_INCLUDE_DIR");
    println!("cargo::rerun-if-env-changed=XROOTD_LIB_DIR");
    println!("cargo::rerun-if-changed=src/io/xrootd/shim.cpp");
    #[cfg(feature = "xrootd")]
    build_xrootd_bridge();
}

/// Compiles `shim.cpp` against the XRootD client library, or warns that it is missing.
#[cfg(feature = "xrootd")]
fn build_xrootd_bridge() {
    let include = std::env::var_os("XROOTD_INCLUDE_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("/usr/include/xrootd"));
    if !include.join("XrdCl/XrdClFile.hh").exists() {
        println!(
            "cargo::warning=the XRootD client headers are not in {} (install \
             libxrootd-client-dev or set XROOTD_INCLUDE_DIR): root:// URLs will not open",
            include.display()
        );
        return;
    }
    cc::Build::new()
        .cpp(true)
        .std("c++14")
        .include(&include)
        .file("src/io/xrootd/shim.cpp")
        .warnings(false)
        .compile("rootweave_xrootd_shim");
    if let Some(dir) = std::env::var_os("XROOTD_LIB_DIR") {
        println!(
            "cargo::rustc-link-search=native={}",
            std::path::PathBuf::from(dir).display()
        );
    }
    println!("cargo::rustc-link-lib=dylib=XrdCl");
    println!("cargo::rustc-link-lib=dylib=XrdUtils");
    println!("cargo::rustc-cfg=rootweave_xrootd");
}
