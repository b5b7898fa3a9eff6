//! The calls into the C++ bridge (`shim.cpp`) over the XRootD client library, loaded at run
//! time (`bridge`), wrapped so that the rest of the module sees safe functions and
//! [`Failure`]s.

use std::ffi::{c_char, c_int, CStr, CString};

use super::bridge::{bridge, Bridge};
use super::{Failure, Limits};

/// The bridge's `rw_xrd_error`.
#[repr(C)]
pub(super) struct RawError {
    kind: c_int,
    message: [c_char; 480],
}

impl RawError {
    fn new() -> Self {
        RawError {
            kind: 0,
            message: [0; 480],
        }
    }

    fn failure(&self) -> Failure {
        // The bridge always writes a NUL-ended message (snprintf), and the array starts
        // zeroed; a last NUL is forced anyway.
        let mut bytes: Vec<u8> = self.message.iter().map(|&c| c as u8).collect();
        bytes.push(0);
        let message = CStr::from_bytes_until_nul(&bytes)
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        Failure {
            kind: if self.kind == 0 { 5 } else { self.kind },
            message,
        }
    }
}

/// The bridge's `rw_xrd_limits`.
#[repr(C)]
pub(super) struct RawLimits {
    iov_max: u32,
    ior_max: u32,
}

/// The bridge's opaque `rw_xrd_file`.
#[repr(C)]
pub(super) struct RawFile {
    _private: [u8; 0],
}

/// An open file of the XRootD client library; closed when dropped.
#[derive(Debug)]
pub(super) struct Handle {
    bridge: &'static Bridge,
    raw: *mut RawFile,
    timeout: u16,
}

// SAFETY: the handle owns an `XrdCl::File`, whose operations the XRootD client library
// makes safe to call from several threads at once (each call waits on its own state);
// the pointer is never shared outside this struct and freed once, in `drop`.
unsafe impl Send for Handle {}
// SAFETY: as for `Send`: `&Handle` only reaches `rw_xrd_readv` and `rw_xrd_data_server`,
// which XrdCl allows concurrently on one file.
unsafe impl Sync for Handle {}

/// What an open returns: the file, its size, the server's limits and the file's ends.
pub(super) struct Opened {
    pub handle: Handle,
    pub size: u64,
    pub limits: Limits,
    /// The first `end_block` bytes (or fewer), then the last ones not among them.
    pub ends: Vec<u8>,
}

/// Opens `url` for reading and reads its ends (see `rw_xrd_open` in the bridge).
pub(super) fn open(
    url: &str,
    timeout: u16,
    connect_timeout: u16,
    end_block: u64,
) -> Result<Opened, Failure> {
    let bridge = bridge().map_err(|message| Failure {
        kind: Failure::UNSUPPORTED,
        message: message.to_string(),
    })?;
    let c_url = CString::new(url).map_err(|_| Failure {
        kind: 5,
        message: "the URL holds a NUL byte".into(),
    })?;
    let mut ends = vec![0u8; 2 * end_block as usize];
    let mut size = 0u64;
    let defaults = Limits::default();
    let mut limits = RawLimits {
        iov_max: defaults.iov_max,
        ior_max: defaults.ior_max,
    };
    let mut error = RawError::new();
    // SAFETY: every pointer is to a live local of the right type; `ends` holds
    // 2 * end_block bytes, as the bridge requires; the URL is NUL-ended.
    let raw = unsafe {
        (bridge.open)(
            c_url.as_ptr(),
            timeout,
            connect_timeout,
            end_block,
            ends.as_mut_ptr(),
            &mut size,
            &mut limits,
            &mut error,
        )
    };
    if raw.is_null() {
        return Err(error.failure());
    }
    let handle = Handle {
        bridge,
        raw,
        timeout,
    };
    let head = end_block.min(size);
    let tail_start = size.saturating_sub(end_block).max(head);
    ends.truncate((head + (size - tail_start)) as usize);
    Ok(Opened {
        handle,
        size,
        limits: Limits {
            iov_max: limits.iov_max.max(1),
            ior_max: limits.ior_max.max(1),
        },
        ends,
    })
}

impl Handle {
    /// Reads every chunk `(offset, buffer)`, one vector read per group sent at once: group
    /// `g` ends before chunk `group_ends[g]`. Each buffer is at most `u32::MAX` bytes.
    pub(super) fn read_groups(
        &self,
        chunks: &mut [(u64, &mut [u8])],
        group_ends: &[usize],
    ) -> Result<(), Failure> {
        let offsets: Vec<u64> = chunks.iter().map(|(o, _)| *o).collect();
        let mut lengths = Vec::with_capacity(chunks.len());
        for (_, buf) in chunks.iter() {
            lengths.push(u32::try_from(buf.len()).map_err(|_| Failure {
                kind: 5,
                message: "a chunk over 4 GiB".into(),
            })?);
        }
        let buffers: Vec<*mut u8> = chunks.iter_mut().map(|(_, b)| b.as_mut_ptr()).collect();
        let ends: Vec<usize> = group_ends.iter().map(|&e| e.min(chunks.len())).collect();
        let mut error = RawError::new();
        // SAFETY: the three arrays have `chunks.len()` entries; each buffer pointer comes
        // from a distinct `&mut [u8]` of the given length that stays borrowed (so alive and
        // unaliased) until the call returns, and the bridge returns only once every vector
        // read has answered, so nothing writes into them afterwards; `ends` has
        // `ends.len()` entries, each at most `chunks.len()`.
        let rc = unsafe {
            (self.bridge.readv)(
                self.raw,
                chunks.len(),
                offsets.as_ptr(),
                lengths.as_ptr(),
                buffers.as_ptr(),
                ends.len(),
                ends.as_ptr(),
                self.timeout,
                &mut error,
            )
        };
        match rc {
            0 => Ok(()),
            _ => Err(error.failure()),
        }
    }

    /// The server that holds the file, after redirects (`host:port`).
    pub(super) fn data_server(&self) -> String {
        let mut out = [0 as c_char; 512];
        // SAFETY: `out` has the capacity given, and the bridge NUL-ends what it writes.
        unsafe { (self.bridge.data_server)(self.raw, out.as_mut_ptr(), out.len()) };
        // SAFETY: the array is NUL-ended by the bridge (snprintf into 512 bytes).
        unsafe { CStr::from_ptr(out.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: `raw` came from `rw_xrd_open` and is freed only here, once.
        unsafe { (self.bridge.close)(self.raw, self.timeout) };
    }
}
