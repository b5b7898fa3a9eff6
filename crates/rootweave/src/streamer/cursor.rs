//! A bounds-checked big-endian cursor over one streamed buffer (a key's payload or a
//! basket's data), with what ROOT's object streaming needs on top of plain values:
//! byte counts and versions, and the map of class tags and objects already read, so
//! that back-references (`0x80000000 | position`, `position`) can be resolved.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use super::bytes::BeReader;
use super::object::Object;
use super::tags::{BYTE_COUNT_MASK, CLASS_MASK, MAP_OFFSET, NEW_CLASS_TAG};
use crate::error::{Error, Result};

/// Deepest nesting of objects accepted (corrupt input must not overflow the stack).
pub const MAX_DEPTH: usize = 64;

/// What a reference tag points at.
#[derive(Debug, Clone)]
pub enum Ref {
    /// A class name read earlier in the buffer.
    Class(String),
    /// An object read earlier in the buffer (`None` while it is still being read).
    Object(Option<Arc<Object>>),
}

/// The start of an object framed by a byte count and a version.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    /// Class version (without the memberwise bit).
    pub version: u16,
    /// True if the version carried the memberwise-streaming bit (0x4000); kept for the
    /// collections streamed memberwise that are not read yet.
    #[allow(dead_code)]
    pub memberwise: bool,
    /// Position just past the object, if it had a byte count.
    pub end: Option<usize>,
}

/// The structure a traced cursor notes while objects are read, which a rewrite of the
/// buffer needs to keep byte counts and references right when bytes move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// Positions of byte counts (each counts the bytes after itself up to an object's end).
    pub counts: Vec<usize>,
    /// Positions of reference tags (to a class or an object read earlier).
    pub refs: Vec<usize>,
    /// Ranges skipped without being read (what they hold is not known).
    pub opaque: Vec<Range<usize>>,
}

/// A cursor over a streamed buffer.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    /// The underlying reader (positions are relative to the buffer start).
    pub r: BeReader<'a>,
    /// What reference tags count from: the key length for keyed objects.
    origin: u32,
    bytes: &'a [u8],
    base: u64,
    file: &'a str,
    object: &'a str,
    refs: HashMap<u32, Ref>,
    /// Current nesting depth of objects.
    pub depth: usize,
    trace: Option<Box<Trace>>,
}

impl<'a> Cursor<'a> {
    /// A cursor over `bytes`, read from `file` at absolute offset `base`, which hold
    /// `object`. Reference tags count from `origin` bytes before the buffer (the key
    /// length for the payload of a key).
    pub fn new(bytes: &'a [u8], base: u64, file: &'a str, object: &'a str, origin: u32) -> Self {
        Cursor {
            r: BeReader::new(bytes, base, file, object),
            origin,
            bytes,
            base,
            file,
            object,
            refs: HashMap::new(),
            depth: 0,
            trace: None,
        }
    }

    /// The same cursor noting the buffer's structure as it reads (see [`Trace`]).
    pub fn traced(mut self) -> Self {
        self.trace = Some(Box::default());
        self
    }

    /// What a traced cursor noted so far.
    pub fn trace(&self) -> Option<&Trace> {
        self.trace.as_deref()
    }

    /// How many byte counts and tags a traced cursor has noted (see
    /// [`Cursor::forget_notes_after`]).
    pub fn notes(&self) -> (usize, usize) {
        self.trace
            .as_ref()
            .map_or((0, 0), |t| (t.counts.len(), t.refs.len()))
    }

    /// Forgets the byte counts and tags noted after `notes` (from [`Cursor::notes`]): a
    /// read that failed may have taken other bytes for them.
    pub fn forget_notes_after(&mut self, notes: (usize, usize)) {
        if let Some(t) = &mut self.trace {
            t.counts.truncate(notes.0);
            t.refs.truncate(notes.1);
        }
    }

    /// Notes that `range` is skipped without being read.
    pub fn opaque(&mut self, range: Range<usize>) {
        if let Some(t) = &mut self.trace {
            if range.start < range.end {
                t.opaque.push(range);
            }
        }
    }

    fn note_count(&mut self, at: usize) {
        if let Some(t) = &mut self.trace {
            t.counts.push(at);
        }
    }

    fn note_ref(&mut self, at: usize) {
        if let Some(t) = &mut self.trace {
            t.refs.push(at);
        }
    }

    /// Current position in the buffer.
    pub fn pos(&self) -> usize {
        self.r.position()
    }

    /// An error at the current position.
    pub fn error(&self, message: impl Into<String>) -> Error {
        self.r.error(message)
    }

    /// Moves to position `to` (forward or back), which must lie inside the buffer.
    pub fn seek(&mut self, to: usize) -> Result<()> {
        let here = self.pos();
        if to >= here {
            self.r.take(to - here)?;
        } else {
            // Rewind by rebuilding the reader at the start and skipping.
            let mut fresh = BeReader::new(self.bytes, self.base, self.file, self.object);
            fresh.take(to)?;
            self.r = fresh;
        }
        Ok(())
    }

    /// The position as a reference tag counts it.
    fn tag_position(&self, pos: usize) -> u32 {
        (pos as u32).wrapping_add(self.origin)
    }

    /// Reads a version, with the byte count in front of it if there is one.
    pub fn frame(&mut self) -> Result<Frame> {
        let start = self.pos();
        let first = self.r.u32()?;
        let end = if first & BYTE_COUNT_MASK != 0 && first != NEW_CLASS_TAG {
            let count = (first & !BYTE_COUNT_MASK) as usize;
            let end = start + 4 + count;
            if count < 2 || end > start + 4 + self.r.remaining() {
                return Err(self.error(format!(
                    "byte count {count} runs past the end of the buffer ({} bytes left)",
                    self.r.remaining()
                )));
            }
            self.note_count(start);
            Some(end)
        } else {
            self.seek(start)?;
            None
        };
        let raw = self.r.u16()?;
        Ok(Frame {
            version: raw & !0x4000,
            memberwise: raw & 0x4000 != 0,
            end,
        })
    }

    /// Moves to the end of a framed object, checking nothing ran past it.
    pub fn finish(&mut self, frame: &Frame, what: &str) -> Result<()> {
        if let Some(end) = frame.end {
            if self.pos() > end {
                return Err(self.error(format!(
                    "{what} read {} bytes past its byte count",
                    self.pos() - end
                )));
            }
            self.opaque(self.pos()..end);
            self.seek(end)?;
        }
        Ok(())
    }

    /// Reads a NUL-terminated class name.
    pub fn cstring(&mut self) -> Result<String> {
        let mut out = Vec::new();
        loop {
            let b = self.r.u8()?;
            if b == 0 {
                break;
            }
            if out.len() >= 4096 {
                return Err(self.error("class name longer than 4096 bytes"));
            }
            out.push(b);
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// Reads the header of an object behind a pointer (`TBuffer::ReadObjectAny`).
    /// Returns `Ok(None)` for a null pointer, [`Tagged::Ref`] for a reference to an
    /// object read before, or [`Tagged::New`] with the class name and the object's
    /// extent when the object's bytes follow (the caller reads them and then calls
    /// [`Cursor::register`]).
    pub fn tagged(&mut self) -> Result<Option<Tagged>> {
        let beg = self.pos();
        let first = self.r.u32()?;
        let (tag, count_end) = if first & BYTE_COUNT_MASK == 0 || first == NEW_CLASS_TAG {
            (first, None)
        } else {
            let count = (first & !BYTE_COUNT_MASK) as usize;
            if count < 4 || count > self.r.remaining() {
                return Err(self.error(format!(
                    "object byte count {count} runs past the end of the buffer ({} bytes left)",
                    self.r.remaining()
                )));
            }
            self.note_count(beg);
            (self.r.u32()?, Some(beg + 4 + count))
        };
        if tag != 0 && tag != NEW_CLASS_TAG {
            self.note_ref(self.pos() - 4);
        }
        if tag & CLASS_MASK == 0 {
            if tag == 0 {
                if let Some(end) = count_end {
                    self.opaque(self.pos()..end);
                    self.seek(end)?;
                }
                return Ok(None);
            }
            let target = match self.refs.get(&tag) {
                Some(Ref::Object(o)) => o.clone(),
                _ => None,
            };
            if let Some(end) = count_end {
                self.opaque(self.pos()..end);
                self.seek(end)?;
            }
            return Ok(Some(Tagged::Ref(target)));
        }
        let class = if tag == NEW_CLASS_TAG {
            let tag_pos = beg + 4;
            let name = self.cstring()?;
            if count_end.is_some() {
                self.refs.insert(
                    self.tag_position(tag_pos) + MAP_OFFSET,
                    Ref::Class(name.clone()),
                );
            }
            name
        } else {
            match self.refs.get(&(tag & !CLASS_MASK)) {
                Some(Ref::Class(name)) => name.clone(),
                _ => {
                    return Err(self.error(format!(
                        "class tag {:#x} does not refer to a class read before",
                        tag
                    )))
                }
            }
        };
        let key = self.tag_position(beg) + MAP_OFFSET;
        self.refs.insert(key, Ref::Object(None));
        Ok(Some(Tagged::New {
            class,
            key,
            end: count_end,
        }))
    }

    /// Records the object read for a [`Tagged::New`] header, for later references.
    pub fn register(&mut self, key: u32, object: Arc<Object>) {
        self.refs.insert(key, Ref::Object(Some(object)));
    }
}

/// The header of an object behind a pointer.
#[derive(Debug, Clone)]
pub enum Tagged {
    /// A reference to an object read before (`None` if it is unknown or still being
    /// read: a cycle).
    Ref(Option<Arc<Object>>),
    /// A new object of `class`; its bytes follow up to `end` (if it has a byte count).
    New {
        /// The class name.
        class: String,
        /// Where to [`Cursor::register`] the object once read.
        key: u32,
        /// Position just past the object.
        end: Option<usize>,
    },
}
