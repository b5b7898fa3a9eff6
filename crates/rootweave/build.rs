//! Builds the bridge to the XRootD client library when the feature `xrootd` is on and the
//! library's headers are found (`XROOTD_INCLUDE_DIR`, else `/usr/include/xrootd`): a shared
//! library that `io::xrootd` embeds and loads when the first `root://` file opens, so that
//! nothing linking rootweave needs the XRootD client library to start. Without the headers,
//! `root://` URLs give an error that says how to get the library.
//!
//! The bridge is compiled by `XROOTD_CXX` (default `c++`), not by the compiler cargo or
//! maturin choose for the target: it passes `std::string`s to the XRootD client library, so
//! it must use the C++ standard library that library was built with.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(rootweave_xrootd)");
    println!("cargo::rerun-if-env-changed=XROOTD_INCLUDE_DIR");
    println!("cargo::rerun-if-env-changed=XROOTD_LIB_DIR");
    println!("cargo::rerun-if-env-changed=XROOTD_CXX");
    println!("cargo::rerun-if-changed=src/io/xrootd/shim.cpp");
    #[cfg(feature = "xrootd")]
    build_xrootd_bridge();
}

/// Compiles `shim.cpp` into `$OUT_DIR/librootweave_xrootd.so`, or warns that the XRootD
/// client headers are missing.
#[cfg(feature = "xrootd")]
fn build_xrootd_bridge() {
    use std::path::PathBuf;
    let include = std::env::var_os("XROOTD_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/include/xrootd"));
    // Watched even when missing (cargo then runs this script on every build), so that a
    // build made before the headers were installed gets the bridge once they are.
    let header = include.join("XrdCl/XrdClFile.hh");
    println!("cargo::rerun-if-changed={}", header.display());
    if !header.exists() {
        println!(
            "cargo::warning=the XRootD client headers are not in {} (install \
             libxrootd-client-dev or set XROOTD_INCLUDE_DIR): root:// URLs will not open",
            include.display()
        );
        return;
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("librootweave_xrootd.so");
    let compiler = std::env::var("XROOTD_CXX").unwrap_or_else(|_| "c++".into());
    let mut command = std::process::Command::new(&compiler);
    command
        .args(["-shared", "-fPIC", "-O2", "-std=c++14", "-s", "-o"])
        .arg(&out)
        .arg("-I")
        .arg(&include)
        .arg("src/io/xrootd/shim.cpp");
    if let Some(dir) = std::env::var_os("XROOTD_LIB_DIR") {
        command.arg("-L").arg(dir);
    }
    command.args(["-Wl,--as-needed", "-lXrdCl", "-lXrdUtils"]);
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C++ compiler `{compiler}`: {e}"));
    if !output.status.success() {
        panic!(
            "building the XRootD bridge with `{compiler}` failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    println!("cargo::rustc-cfg=rootweave_xrootd");
}
