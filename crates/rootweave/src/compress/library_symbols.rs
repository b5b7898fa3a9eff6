//! The entry points of the compression libraries that rootweave calls beyond what the
//! codec crates wrap: libzstd's experimental API and liblz4's HC functions with a
//! caller's state (static-library only). Their `-sys` crates
//! are pinned to exact versions in the workspace's Cargo.toml; these tests stop
//! compiling when an update changes a signature, and fail when the library behind them
//! is another version, so that an update is a deliberate change, checked by the codecs'
//! tests.

use std::os::raw::{c_int, c_uint, c_void};

#[test]
fn libzstd_experimental_symbols_keep_their_signatures() {
    use zstd_sys::*;
    let _: unsafe extern "C" fn(
        *mut ZSTD_CCtx,
        *mut c_void,
        usize,
        *const ZSTD_Sequence,
        usize,
        *const c_void,
        usize,
    ) -> usize = ZSTD_compressSequences;
    let _: unsafe extern "C" fn(*mut ZSTD_CCtx, ZSTD_cParameter, c_int) -> usize =
        ZSTD_CCtx_setParameter;
    let _: unsafe extern "C" fn(*mut ZSTD_CCtx, ZSTD_ResetDirective) -> usize = ZSTD_CCtx_reset;
    let _: unsafe extern "C" fn(c_int, u64, usize) -> ZSTD_compressionParameters = ZSTD_getCParams;
    // ZSTD_c_blockDelimiters, as zstd.h numbers it.
    assert_eq!(ZSTD_cParameter::ZSTD_c_experimentalParam11 as u32, 1008);
    assert_eq!(std::mem::size_of::<ZSTD_Sequence>(), 16);
    // SAFETY: ZSTD_versionNumber has no arguments and no preconditions.
    assert_eq!(unsafe { ZSTD_versionNumber() } as c_uint, 10507);
}

#[test]
fn liblz4_version_is_the_pinned_one() {
    // SAFETY: LZ4_versionNumber has no arguments and no preconditions.
    assert_eq!(unsafe { lz4_sys::LZ4_versionNumber() }, 11000);
}
