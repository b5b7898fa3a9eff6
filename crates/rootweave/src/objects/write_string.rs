//! Strings written as ROOT writes a `TObjString`: the key's name is the object's name, the
//! payload the string.

use crate::container::{DirectoryId, FileWriter, KeyInfo};
use crate::error::Result;
use crate::streamer::attribute_layouts;
use crate::streamer::ObjectStream;

/// Writes `text` as a `TObjString` keyed `name` in directory `dir` of `file`.
pub fn write_string(
    file: &FileWriter,
    dir: DirectoryId,
    name: &str,
    text: &str,
) -> Result<KeyInfo> {
    let mut b = ObjectStream::default();
    b.begin_version(1);
    b.tobject(0);
    b.tstring(text);
    b.end();
    let layouts = super::layouts::label_layouts()
        .into_iter()
        .filter(|i| i.class_name == "TObjString")
        .chain(
            attribute_layouts()
                .into_iter()
                .filter(|i| i.class_name == "TObject"),
        )
        .collect();
    file.add_streamer_infos(layouts);
    file.write_object_in(
        dir,
        "TObjString",
        name,
        "Collectable string class",
        &b.into_bytes(),
        true,
    )
}
