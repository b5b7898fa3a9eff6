//! The ROOT file container: header, keys, directories, the StreamerInfo record and the
//! free-segments record. It knows nothing of what is inside a key.

pub mod bytes;
pub mod directory;
pub mod header;
pub mod key;
pub mod reader;
pub mod streamer_info;
pub mod writer;

pub use header::FileHeader;
pub use key::KeyInfo;
pub use reader::RootFile;
pub use writer::{CloseSummary, FileWriter, WriterOptions, BLOB_KEY_LEN};
