//! Reading a keyed object for rewriting: its payload, the object read by the file's class
//! layouts, and the trace of where its members, byte counts and tags lie.

use crate::container::{KeyInfo, RootFile};
use crate::error::Result;
use crate::streamer::{restream, Cursor, Object, ObjectReader, StreamerSet, Trace};

/// An object read with its trace, ready to be rewritten.
pub(crate) struct TracedObject {
    /// The uncompressed payload of its key.
    pub payload: Vec<u8>,
    /// The object.
    pub object: Object,
    /// Where its byte counts and reference tags are.
    pub trace: Trace,
}

/// Reads the object behind `key` of `file`; errors name it `what`.
pub(crate) fn read_traced(
    file: &RootFile,
    streamers: &StreamerSet,
    key: &KeyInfo,
    what: &str,
) -> Result<TracedObject> {
    let payload = file.read_object(key)?;
    let mut c = Cursor::new(
        &payload,
        key.payload_offset(),
        file.name(),
        what,
        key.keylen as u32,
    )
    .traced();
    let object = ObjectReader { streamers }.read_keyed(&mut c, &key.class_name)?;
    let trace = c.trace().cloned().unwrap_or_default();
    Ok(TracedObject {
        payload,
        object,
        trace,
    })
}

/// `payload` (read as the record behind `key`, traced as `trace`) with `edits`, for a
/// record whose key header is `new_keylen` bytes long.
pub(crate) fn rewrite(
    payload: &[u8],
    trace: &Trace,
    edits: Vec<restream::Edit>,
    key: &KeyInfo,
    new_keylen: u32,
) -> std::result::Result<Vec<u8>, String> {
    restream::rewrite(payload, trace, edits, key.keylen as u32, new_keylen)
}
