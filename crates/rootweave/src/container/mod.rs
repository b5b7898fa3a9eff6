//! Temporary API stand-in (replaced by the real container module).
#![allow(missing_docs, dead_code, unused_variables)]
use crate::compress::Compression;
use crate::error::Result;
use crate::io::ReadAt;
use std::path::Path;
use std::sync::Arc;

#[derive(Debug, Default)]
pub struct WriterOptions {
    pub compression: Compression,
    pub title: String,
}
pub struct FileWriter;
impl FileWriter {
    pub fn create(path: impl AsRef<Path>, options: WriterOptions) -> Result<Self> {
        todo!()
    }
    pub fn allocate(&self, len: u64) -> u64 {
        todo!()
    }
    pub fn write_at(&self, offset: u64, bytes: &[u8]) -> Result<()> {
        todo!()
    }
    pub fn reserve_blob(&self, payload_len: u64, objlen: u64) -> Result<u64> {
        todo!()
    }
    pub fn write_blob(&self, payload: &[u8], objlen: u64) -> Result<u64> {
        todo!()
    }
    pub fn write_object(
        &self,
        class: &str,
        name: &str,
        title: &str,
        payload: &[u8],
        compress: bool,
    ) -> Result<KeyInfo> {
        todo!()
    }
    pub fn set_streamer_list(&self, tlist_payload: Vec<u8>) {
        todo!()
    }
    pub fn close(self) -> Result<u64> {
        todo!()
    }
}
pub struct KeyInfo {
    pub class_name: String,
    pub name: String,
    pub title: String,
    pub cycle: u16,
    pub nbytes: u32,
    pub objlen: u32,
    pub keylen: u16,
    pub seek_key: u64,
}
pub struct RootFile;
impl RootFile {
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        todo!()
    }
    pub fn keys(&self) -> &[KeyInfo] {
        todo!()
    }
}
pub mod streamer_info;
