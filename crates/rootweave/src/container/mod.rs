//! The ROOT file container: header, keys, directories, the StreamerInfo record (written
//! and read through the streamer layer) and the free-segments record. It knows nothing of what is inside a key.

pub(crate) mod directory;
pub(crate) mod header;
pub(crate) mod key;
mod reader;
mod streamer_record;
pub(crate) mod windows;
pub(crate) mod write_dirs;
pub(crate) mod writer;

pub use header::FileHeader;
pub use key::KeyInfo;
pub use reader::RootFile;
pub use streamer_record::{read_streamers, streamer_records};
pub use write_dirs::DirectoryId;
pub use writer::{
    AppendedDirectory, CloseSummary, DirectoryIdentity, FileWriter, WriterOptions, BLOB_KEY_LEN,
};
