//! The marks ROOT's `TBufferFile` puts in a stream: byte counts before framed objects,
//! class tags before objects behind pointers, and the `TObject` bit saying a process ID
//! follows. Every reader and writer of streamed bytes takes them from here.

/// The bit that marks a 32-bit word as a byte count (ROOT's `kByteCountMask`).
pub const BYTE_COUNT_MASK: u32 = 0x4000_0000;

/// The bit marking a tag that refers to a class tagged before (ROOT's `kClassMask`).
pub const CLASS_MASK: u32 = 0x8000_0000;

/// A class tag spelling out the class name (ROOT's `kNewClassTag`).
pub const NEW_CLASS_TAG: u32 = 0xFFFF_FFFF;

/// What reference tags count from besides the key length (ROOT's `kMapOffset`).
pub const MAP_OFFSET: u32 = 2;

/// The `TObject::fBits` bit saying the object is referenced (`kIsReferenced`): a 16-bit
/// process ID follows its bits.
pub const IS_REFERENCED: u32 = 1 << 4;
