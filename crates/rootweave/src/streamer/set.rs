//! The class layouts a file describes in its StreamerInfo record: `TStreamerInfo`
//! objects, each a list of `TStreamerElement`s (bases, basic types, pointers to arrays,
//! strings, objects, STL containers), parsed into [`StreamerInfo`] records that
//! [`super::object`] follows to read objects member by member.
//!
//! The streamer classes themselves (`TStreamerInfo`, `TStreamerElement` and its
//! subclasses, `TObjArray`, `TList`) are read by built-in code: the file cannot
//! describe how to read its own descriptions.

use std::collections::HashMap;

use super::code;
use super::cursor::{Cursor, Tagged, Trace, MAX_DEPTH};
use super::element::{Element, ElementClass, StreamerInfo};
use super::object::ObjectReader;
use super::tags::IS_REFERENCED;
use crate::error::Result;

/// All class layouts of a file, by class name and version.
#[derive(Debug, Clone, Default)]
pub struct StreamerSet {
    infos: Vec<StreamerInfo>,
    by_name: HashMap<String, Vec<usize>>,
}

impl StreamerSet {
    /// Parses the uncompressed payload of a file's StreamerInfo record (a `TList`), which
    /// errors name `object` with offsets from `base` (see `KeyInfo::record_label`).
    /// `keylen` is the length of the record's key (reference tags count from it).
    pub fn parse(payload: &[u8], base: u64, file: &str, object: &str, keylen: u32) -> Result<Self> {
        let mut c = Cursor::new(payload, base, file, object, keylen);
        Self::parse_list(&mut c)
    }

    /// [`StreamerSet::parse`], also noting where the record's byte counts and reference
    /// tags lie (to write it in a key of another length). The list's other entries (the
    /// schema evolution rules) are read as generic objects; what cannot be read is noted
    /// as opaque.
    pub(crate) fn parse_traced(
        payload: &[u8],
        base: u64,
        file: &str,
        object: &str,
        keylen: u32,
    ) -> Result<(Self, Trace)> {
        let mut c = Cursor::new(payload, base, file, object, keylen).traced();
        let set = Self::parse_list(&mut c)?;
        Ok((set, c.trace().cloned().unwrap_or_default()))
    }

    fn parse_list(c: &mut Cursor) -> Result<Self> {
        let mut set = StreamerSet::default();
        let list = c.frame()?;
        skip_tobject(c)?;
        c.r.tstring()?;
        let n = c.r.i32()?;
        if n < 0 || n as usize > c.r.remaining() {
            return Err(c.error(format!("{n} streamer records in the list")));
        }
        for _ in 0..n {
            match c.tagged()? {
                Some(Tagged::New { class, end, .. }) => {
                    if class == "TStreamerInfo" {
                        let info = read_streamer_info(c)?;
                        set.add(info);
                    } else if let Some(end) = end {
                        // A generic read keeps the entry's tags in a traced cursor's notes.
                        let (start, notes) = (c.pos(), c.notes());
                        let read = ObjectReader { streamers: &set }.read(c, &class);
                        if read.is_err() || c.pos() > end {
                            c.forget_notes_after(notes);
                            c.seek(start)?;
                            c.opaque(start..end);
                        }
                    }
                    if let Some(end) = end {
                        if c.pos() < end {
                            c.opaque(c.pos()..end);
                        }
                        c.seek(end)?;
                    }
                }
                Some(Tagged::Ref(_)) | None => {}
            }
            // The option string of each list entry.
            let len = c.r.u8()? as usize;
            c.r.take(len)?;
        }
        c.finish(&list, "StreamerInfo list")?;
        Ok(set)
    }

    /// Adds a class layout.
    pub fn add(&mut self, info: StreamerInfo) {
        let i = self.infos.len();
        self.by_name
            .entry(info.class_name.clone())
            .or_default()
            .push(i);
        self.infos.push(info);
    }

    /// The layout of `class` at `version`, or the only/latest layout of `class` when
    /// that version is not described.
    pub fn get(&self, class: &str, version: i32) -> Option<&StreamerInfo> {
        let list = self.by_name.get(class)?;
        list.iter()
            .map(|&i| &self.infos[i])
            .find(|s| s.class_version == version)
            .or_else(|| {
                list.iter()
                    .map(|&i| &self.infos[i])
                    .max_by_key(|s| s.class_version)
            })
    }

    /// How many layouts (class versions) of `class` the file describes.
    pub fn versions(&self, class: &str) -> usize {
        self.by_name.get(class).map_or(0, Vec::len)
    }

    /// Every layout, in file order.
    pub fn all(&self) -> &[StreamerInfo] {
        &self.infos
    }
}

/// Skips a `TObject` (version, unique ID, bits and, for referenced objects, a process ID).
pub fn skip_tobject(c: &mut Cursor) -> Result<(u32, u32)> {
    let frame = c.frame()?;
    let unique_id = c.r.u32()?;
    let bits = c.r.u32()?;
    if bits & IS_REFERENCED != 0 {
        c.r.u16()?;
    }
    c.finish(&frame, "TObject")?;
    Ok((unique_id, bits))
}

/// Reads a `TNamed` (framed `TObject`, name, title).
pub fn read_tnamed(c: &mut Cursor) -> Result<(String, String)> {
    let frame = c.frame()?;
    skip_tobject(c)?;
    let name = c.r.tstring()?;
    let title = c.r.tstring()?;
    c.finish(&frame, "TNamed")?;
    Ok((name, title))
}

fn read_streamer_info(c: &mut Cursor) -> Result<StreamerInfo> {
    let frame = c.frame()?;
    let (name, _) = read_tnamed(c)?;
    let checksum = c.r.u32()?;
    let class_version = c.r.i32()?;
    let mut elements = Vec::new();
    if let Some(Tagged::New { class, end, .. }) = c.tagged()? {
        if class != "TObjArray" {
            return Err(c.error(format!(
                "the elements of class '{name}' are a {class}, not a TObjArray"
            )));
        }
        let array = c.frame()?;
        skip_tobject(c)?;
        c.r.tstring()?;
        let n = c.r.i32()?;
        c.r.i32()?;
        if n < 0 || n as usize > c.r.remaining() {
            return Err(c.error(format!("class '{name}' has {n} elements")));
        }
        for _ in 0..n {
            if let Some(Tagged::New { class, end, .. }) = c.tagged()? {
                let element = read_element(c, &class, 0)?;
                elements.push(element);
                if let Some(end) = end {
                    if c.pos() < end {
                        c.opaque(c.pos()..end);
                    }
                    c.seek(end)?;
                }
            }
        }
        c.finish(&array, "TObjArray")?;
        if let Some(end) = end {
            if c.pos() < end {
                c.opaque(c.pos()..end);
            }
            c.seek(end)?;
        }
    }
    c.finish(&frame, "TStreamerInfo")?;
    Ok(StreamerInfo {
        class_name: name,
        checksum,
        class_version,
        elements,
    })
}

fn read_element(c: &mut Cursor, class: &str, depth: usize) -> Result<Element> {
    if depth > MAX_DEPTH {
        return Err(c.error("streamer elements nested too deeply"));
    }
    let outer = c.frame()?;
    let kind = ElementClass::of_streamer_class(class);
    if kind == ElementClass::StlString {
        // A TStreamerSTL inside its own frame.
        let mut e = read_element(c, "TStreamerSTL", depth + 1)?;
        e.class = ElementClass::StlString;
        c.finish(&outer, "TStreamerSTLstring")?;
        return Ok(e);
    }
    let inner = if kind == ElementClass::Other && class == "TStreamerElement" {
        outer
    } else {
        c.frame()?
    };
    let (name, title) = read_tnamed(c)?;
    let mut ty = c.r.i32()?;
    let size = c.r.i32()?;
    let array_length = c.r.i32()?;
    let array_dim = c.r.i32()?;
    let mut max_index = [0i32; 5];
    if inner.version == 1 {
        let n = c.r.i32()?;
        for k in 0..n.max(0) {
            let v = c.r.i32()?;
            if (k as usize) < 5 {
                max_index[k as usize] = v;
            }
        }
    } else {
        for m in &mut max_index {
            *m = c.r.i32()?;
        }
    }
    let type_name = c.r.tstring()?;
    if ty == code::UCHAR && (type_name == "Bool_t" || type_name == "bool") {
        ty = code::BOOL;
    }
    c.finish(&inner, "TStreamerElement")?;
    let mut e = Element {
        class: kind,
        name: name.into(),
        title,
        ty,
        size,
        array_length,
        array_dim,
        max_index,
        type_name,
        base_version: 0,
        count_name: String::new(),
        count_class: String::new(),
        count_version: 0,
        stl_type: 0,
        ctype: 0,
    };
    let left = outer.end.map_or(0, |end| end.saturating_sub(c.pos()));
    if left > 0 {
        match kind {
            ElementClass::Base if left >= 4 => e.base_version = c.r.i32()?,
            ElementClass::BasicPointer | ElementClass::Loop => {
                e.count_version = c.r.i32()?;
                e.count_name = c.r.tstring()?;
                e.count_class = c.r.tstring()?;
            }
            ElementClass::Stl => {
                e.stl_type = c.r.i32()?;
                e.ctype = c.r.i32()?;
            }
            _ => {}
        }
    }
    c.finish(&outer, class)?;
    Ok(e)
}
