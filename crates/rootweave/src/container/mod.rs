//! The ROOT file container: header, keys, directories, the StreamerInfo record and the
//! free-segments record. It knows nothing of what is inside a key.

pub(crate) mod bytes;
pub(crate) mod directory;
pub(crate) mod header;
pub(crate) mod key;
mod reader;
pub(crate) mod stream;
pub(crate) mod streamer_info;
pub(crate) mod windows;
pub(crate) mod write_dirs;
pub(crate) mod writer;

pub use header::FileHeader;
pub use key::KeyInfo;
pub use reader::RootFile;
pub use write_dirs::DirectoryId;
pub use writer::{
    AppendedDirectory, CloseSummary, DirectoryIdentity, FileWriter, WriterOptions, BLOB_KEY_LEN,
};
