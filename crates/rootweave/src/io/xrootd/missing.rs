//! Stands in for the bridge to the XRootD client library in builds without it: every open
//! fails, saying how to get the library.

use super::{Failure, Limits};

/// No file can be open without the library.
#[derive(Debug)]
pub(super) enum Handle {}

/// What an open returns (never, here).
pub(super) struct Opened {
    pub handle: Handle,
    pub size: u64,
    pub limits: Limits,
    pub ends: Vec<u8>,
}

/// Fails: this build has no XRootD client library.
pub(super) fn open(_: &str, _: u16, _: u16, _: u64) -> Result<Opened, Failure> {
    Err(Failure {
        kind: Failure::UNSUPPORTED,
        message: "root:// URLs: rootweave was built without the XRootD client library \
                  (install libxrootd-client-dev and rebuild with the feature `xrootd`)"
            .into(),
    })
}

impl Handle {
    pub(super) fn read_groups(
        &self,
        _: &mut [(u64, &mut [u8])],
        _: &[usize],
    ) -> Result<(), Failure> {
        match *self {}
    }

    pub(super) fn data_server(&self) -> String {
        match *self {}
    }
}
