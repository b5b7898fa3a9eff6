//! Loads the bridge to the XRootD client library when the first `root://` file opens. The
//! bridge (`shim.cpp`, built into a shared library by `build.rs`) is embedded in this library
//! and handed to the dynamic loader from memory, so that programs and Python wheels linking
//! rootweave need the XRootD client library only to open `root://` files: where it is
//! missing, that open fails saying what to install, and nothing else is affected.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::io::Write;
use std::sync::OnceLock;

use super::ffi::{RawError, RawFile, RawLimits};

/// The bridge's shared library, as `build.rs` made it.
static LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/librootweave_xrootd.so"));

/// What users are told to install when the XRootD client library cannot be loaded.
const INSTALL_HINT: &str = "install the XRootD client library: Debian and Ubuntu `libxrdcl3` \
     (or `libxrootd-client-dev`), Fedora and EL `xrootd-client-libs`, conda-forge `xrootd`";

/// `rw_xrd_open` of the bridge.
pub(super) type OpenFn = unsafe extern "C" fn(
    *const c_char,
    u16,
    u16,
    u64,
    *mut u8,
    *mut u64,
    *mut RawLimits,
    *mut RawError,
) -> *mut RawFile;
/// `rw_xrd_readv` of the bridge.
pub(super) type ReadvFn = unsafe extern "C" fn(
    *mut RawFile,
    usize,
    *const u64,
    *const u32,
    *const *mut u8,
    usize,
    *const usize,
    u16,
    *mut RawError,
) -> c_int;
/// `rw_xrd_data_server` of the bridge.
pub(super) type DataServerFn = unsafe extern "C" fn(*mut RawFile, *mut c_char, usize);
/// `rw_xrd_close` of the bridge.
pub(super) type CloseFn = unsafe extern "C" fn(*mut RawFile, u16);

/// The bridge's four calls, loaded once per process and never unloaded.
#[derive(Debug)]
pub(super) struct Bridge {
    pub open: OpenFn,
    pub readv: ReadvFn,
    pub data_server: DataServerFn,
    pub close: CloseFn,
}

/// The loaded bridge, or why it could not be loaded (the same answer for the whole process).
pub(super) fn bridge() -> Result<&'static Bridge, &'static str> {
    static BRIDGE: OnceLock<Result<Bridge, String>> = OnceLock::new();
    BRIDGE
        .get_or_init(|| load_from(LIBRARY))
        .as_ref()
        .map_err(String::as_str)
}

/// Loads the bridge from the bytes of its shared library.
fn load_from(library: &[u8]) -> Result<Bridge, String> {
    let written = write_library(library)?;
    let c_path = std::ffi::CString::new(written.path()).map_err(|e| e.to_string())?;
    // SAFETY: `c_path` is NUL-ended; the library's only initialisers are the C++ static
    // constructors of the bridge and of the XRootD client library, which dlopen runs as
    // for any library. The handle is never closed, so the symbols stay valid.
    let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(format!(
            "root:// URLs need the XRootD client library (libXrdCl.so.3), which could not be \
             loaded ({}): {INSTALL_HINT}",
            loader_error()
        ));
    }
    // The loader knows the library by its path: an in-memory file stays open for the
    // process, so that no later library gets the same `/proc/self/fd/N` and is taken for it
    // (a temporary file has a name of its own and is removed: the loader keeps its mapping).
    if matches!(written, Written::Memory(_)) {
        std::mem::forget(written);
    }
    let symbol = |name: &CStr| -> Result<*mut c_void, String> {
        // SAFETY: `handle` is a live handle from dlopen and `name` is NUL-ended.
        let address = unsafe { libc::dlsym(handle, name.as_ptr()) };
        match address.is_null() {
            true => Err(format!(
                "the XRootD bridge lacks {}: {}",
                name.to_string_lossy(),
                loader_error()
            )),
            false => Ok(address),
        }
    };
    // SAFETY (the four transmutes): each symbol is the `extern "C"` function of that name
    // in shim.cpp, built from the same source in the same build as this file, whose
    // parameter and return types are the ones its function pointer type spells out
    // (`RawError`, `RawFile` and `RawLimits` are `#[repr(C)]` images of its structs).
    Ok(Bridge {
        open: unsafe { std::mem::transmute::<*mut c_void, OpenFn>(symbol(c"rw_xrd_open")?) },
        readv: unsafe { std::mem::transmute::<*mut c_void, ReadvFn>(symbol(c"rw_xrd_readv")?) },
        data_server: unsafe {
            std::mem::transmute::<*mut c_void, DataServerFn>(symbol(c"rw_xrd_data_server")?)
        },
        close: unsafe { std::mem::transmute::<*mut c_void, CloseFn>(symbol(c"rw_xrd_close")?) },
    })
}

/// The dynamic loader's last message.
fn loader_error() -> String {
    // SAFETY: dlerror returns null or a NUL-ended message owned by the loader, read here
    // before any other loader call on this thread.
    let message = unsafe { libc::dlerror() };
    if message.is_null() {
        return "no message".into();
    }
    // SAFETY: not null, NUL-ended (see above).
    unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned()
}

/// The embedded library written out for the loader: an anonymous in-memory file, or one
/// in the temporary directory (removed when dropped).
enum Written {
    Memory(std::fs::File),
    Temporary(std::path::PathBuf),
}

impl Written {
    /// The path the loader opens.
    fn path(&self) -> String {
        match self {
            Written::Memory(file) => {
                format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(file))
            }
            Written::Temporary(path) => path.to_string_lossy().into_owned(),
        }
    }
}

impl Drop for Written {
    fn drop(&mut self) {
        if let Written::Temporary(path) = self {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Puts the embedded library where the loader can open it: an anonymous in-memory file
/// (`/proc/self/fd/N`), or, where the kernel has none, a file in the temporary directory.
fn write_library(library: &[u8]) -> Result<Written, String> {
    // SAFETY: the name is NUL-ended; memfd_create only makes a new descriptor.
    let fd = unsafe { libc::memfd_create(c"rootweave-xrootd".as_ptr(), libc::MFD_CLOEXEC) };
    if fd >= 0 {
        // SAFETY: `fd` was just made by memfd_create and nothing else owns it.
        let mut file = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        if file.write_all(library).is_ok() {
            return Ok(Written::Memory(file));
        }
    }
    let path = std::env::temp_dir().join(format!(
        "rootweave-xrootd-{}-{:x}.so",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut f| f.write_all(library))
        .map_err(|e| format!("cannot write the XRootD bridge to {}: {e}", path.display()))?;
    Ok(Written::Temporary(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_bridge_loads_and_a_broken_one_says_what_to_install() {
        assert!(bridge().is_ok(), "{:?}", bridge().err());
        let message = load_from(b"not a shared library").unwrap_err();
        assert!(message.contains("libXrdCl.so.3"), "{message}");
        assert!(message.contains("libxrdcl3"), "{message}");
    }
}
