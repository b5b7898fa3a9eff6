//! The schema of a merged RNTuple and where each of its columns comes from in every input.
//!
//! Strict merging takes the first input's schema and requires every input to have it.
//! Union merging (ROOT's RNTupleMerger has the same mode) matches top-level fields by
//! name: fields the first input lacks are appended to the footer's schema extension when
//! an input brings them (their columns deferred to that input's first entry), and an input
//! lacking a field gets default values for it (pages of zeros for the field's principal
//! column: zero, false, empty collections and strings).

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::rntuple::format::serialize::Serializer;
use crate::rntuple::read::{ColumnCodec, ColumnRecord, ColumnRef, Descriptor, FieldRecord, Role};

/// One column of the merged RNTuple.
#[derive(Debug, Clone)]
pub(super) struct MergedColumn {
    /// Per input, the input's physical column holding this column's data, if it has it.
    pub from: Vec<Option<u32>>,
    /// The first input that has the column: inputs before it contribute nothing (the
    /// column is deferred to the entries after them).
    pub first_input: usize,
    /// The column's first element in the output: past the default elements of the
    /// entries before its first input.
    pub start: u64,
    /// Elements per entry of the default value an input without the column gets (the
    /// field's principal column outside collections), or `None` for no elements.
    pub zeros_per_entry: Option<u64>,
    /// How the column's elements are stored.
    pub codec: ColumnCodec,
}

/// The merged RNTuple's columns, and the records its footer's schema extension adds to
/// the first input's.
#[derive(Debug)]
pub(super) struct MergedSchema {
    /// All columns by output physical ID.
    pub columns: Vec<MergedColumn>,
    added_fields: Vec<FieldRecord>,
    added_columns: Vec<ColumnRecord>,
    added_aliases: Vec<(u32, u32)>,
}

/// The inputs' copies of one RNTuple: each input's file name and descriptor, in order.
pub(super) type Copies<'a> = [(&'a str, &'a Descriptor)];

impl MergedSchema {
    /// The first input's schema, which every other input must have exactly.
    pub fn strict(path: &str, copies: &Copies) -> Result<Self> {
        let (_, first) = copies[0];
        for &other in &copies[1..] {
            check_same_schema(path, copies[0], other)?;
        }
        let columns = (0..first.columns.len() as u32)
            .map(|c| MergedColumn {
                from: vec![Some(c); copies.len()],
                first_input: 0,
                start: 0,
                zeros_per_entry: None,
                codec: first.codec(c),
            })
            .collect();
        Ok(MergedSchema {
            columns,
            added_fields: Vec::new(),
            added_columns: Vec::new(),
            added_aliases: Vec::new(),
        })
    }

    /// The union of the inputs' schemas: the first input's, then the top-level fields
    /// later inputs bring, in order. Fields of one name must agree in type, structure
    /// and columns; `entries[k]` is input `k`'s number of entries.
    pub fn union(path: &str, copies: &Copies, entries: &[u64]) -> Result<Self> {
        let (_, first) = copies[0];
        let mut out = Builder {
            path,
            inputs: copies.len(),
            fields: first.fields.clone(),
            origin: vec![0; first.fields.len()],
            records: first.columns.clone(),
            columns: (0..first.columns.len() as u32)
                .map(|c| MergedColumn {
                    from: vec![None; copies.len()],
                    first_input: 0,
                    start: 0,
                    zeros_per_entry: None,
                    codec: first.codec(c),
                })
                .collect(),
            added_aliases: Vec::new(),
        };
        for (k, &(file, d)) in copies.iter().enumerate() {
            let before: u64 = entries[..k].iter().sum();
            // Non-projected fields first: a projected one names its source's columns.
            let mut top: Vec<&FieldRecord> = d.fields.iter().filter(|f| f.is_top_level()).collect();
            top.sort_by_key(|f| f.source_field.is_some());
            let mut field_map = HashMap::new();
            for f in top {
                let found = out
                    .fields
                    .iter()
                    .find(|o| o.is_top_level() && o.name == f.name)
                    .map(|o| o.id);
                match found {
                    Some(o) => {
                        let pair = Pair {
                            out: &out,
                            earlier: copies[out.origin[o as usize]].0,
                            file,
                            d,
                        };
                        pair.check_field(o, f.id, &mut field_map)?;
                    }
                    None => out.add_field(d, f.id, None, (k, before), &mut field_map)?,
                }
            }
            // Every output column found in this input takes its data from there.
            for (&input_field, &output_field) in &field_map {
                let ours = physical_columns(&out.fields[output_field as usize]);
                let theirs = physical_columns(&d.fields[input_field as usize]);
                for (o, i) in ours.into_iter().zip(theirs) {
                    out.columns[o as usize].from[k] = Some(i);
                }
            }
        }
        // Defaults for inputs without a field: zeros in its principal column.
        for c in 0..out.columns.len() {
            let zeros = principal_reps(&out.fields, &out.records, c as u32);
            let column = &mut out.columns[c];
            column.zeros_per_entry = zeros;
            let needs_defaults = column.from[column.first_input..]
                .iter()
                .any(Option::is_none);
            let owner = out.records[c].field as usize;
            if needs_defaults && out.fields[owner].role == Role::Streamer {
                return Err(Error::InvalidArgument(format!(
                    "RNTuple '{path}': field '{}' is stored with ROOT's streamer and is \
                     missing from some inputs; it has no default value",
                    qualified_name(&out.fields, owner as u32)
                )));
            }
        }
        let first_columns = first.columns.len();
        Ok(MergedSchema {
            columns: out.columns,
            added_fields: out.fields.split_off(first.fields.len()),
            added_columns: out.records.split_off(first_columns),
            added_aliases: out.added_aliases,
        })
    }
    /// The footer's schema extension: the first input's `extension` record with the
    /// fields, columns and alias columns union merging added appended to its lists.
    pub fn extension(&self, extension: &[u8], file: &str) -> Result<Vec<u8>> {
        if self.added_fields.is_empty() {
            return Ok(extension.to_vec());
        }
        let malformed = |what: &str| {
            Error::format(
                file,
                "RNTuple footer",
                0,
                format!("the schema extension record {what}"),
            )
        };
        let (lists, end) = extension_lists(extension).ok_or_else(|| malformed("is malformed"))?;
        let mut s = Serializer::new();
        s.begin_record();
        let added = [
            self.added_fields.len(),
            self.added_columns.len(),
            self.added_aliases.len(),
            0,
        ];
        for (i, list) in lists.iter().enumerate() {
            let (count, items) = list.map_or((0, &[][..]), |(n, b)| (n, b));
            let total = u32::try_from(added[i])
                .ok()
                .and_then(|n| count.checked_add(n))
                .ok_or_else(|| malformed("lists too many items"))?;
            s.begin_list(total).raw(items);
            match i {
                0 => self
                    .added_fields
                    .iter()
                    .for_each(|f| field_record(&mut s, f)),
                1 => self
                    .added_columns
                    .iter()
                    .for_each(|c| column_record(&mut s, c)),
                2 => {
                    for &(physical, field) in &self.added_aliases {
                        s.begin_record().u32(physical).u32(field).end_frame();
                    }
                }
                _ => {}
            }
            s.end_frame();
        }
        // Anything a later format version put after the four lists is kept.
        s.raw(&extension[end..]);
        s.end_frame();
        Ok(s.into_bytes())
    }
}

/// The output schema as it grows.
struct Builder<'a> {
    path: &'a str,
    inputs: usize,
    /// All fields by output ID, and the input each came from.
    fields: Vec<FieldRecord>,
    origin: Vec<usize>,
    /// All column records by output physical ID.
    records: Vec<ColumnRecord>,
    columns: Vec<MergedColumn>,
    added_aliases: Vec<(u32, u32)>,
}

impl Builder<'_> {
    /// Adds field `id` of `d` (input `k` of `at = (k, entries before it)`) and its
    /// subfields under output field `parent` (`None`: top level), its principal columns
    /// deferred past the entries before.
    fn add_field(
        &mut self,
        d: &Descriptor,
        id: u32,
        parent: Option<u32>,
        at: (usize, u64),
        field_map: &mut HashMap<u32, u32>,
    ) -> Result<()> {
        let (k, before) = at;
        let f = &d.fields[id as usize];
        let new_id = self.fields.len() as u32;
        let mut record = f.clone();
        record.id = new_id;
        record.parent = parent.unwrap_or(new_id);
        record.children.clear();
        record.columns.clear();
        record.extended = true;
        if let Some(source) = f.source_field {
            record.source_field = Some(*field_map.get(&source).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "RNTuple '{}': projected field '{}' has a source outside the merge",
                    self.path,
                    d.field_path(id)
                ))
            })?);
        }
        if let Some(p) = parent {
            self.fields[p as usize].children.push(new_id);
        }
        self.fields.push(record);
        self.origin.push(k);
        field_map.insert(id, new_id);
        for c in &f.columns {
            if c.alias {
                let physical = self.output_column(d, c.physical, field_map)?;
                self.fields[new_id as usize].columns.push(ColumnRef {
                    physical,
                    alias: true,
                });
                self.added_aliases.push((physical, new_id));
                continue;
            }
            let col = d.columns[c.physical as usize];
            if col.representation > 0 || col.deferred_suppressed {
                return Err(Error::InvalidArgument(format!(
                    "RNTuple '{}': field '{}' has several column representations; union \
                     merging of such fields is not supported",
                    self.path,
                    d.field_path(id)
                )));
            }
            let out_id = self.columns.len() as u32;
            self.columns.push(MergedColumn {
                from: vec![None; self.inputs],
                first_input: k,
                start: 0,
                zeros_per_entry: None,
                codec: d.codec(c.physical),
            });
            self.fields[new_id as usize].columns.push(ColumnRef {
                physical: out_id,
                alias: false,
            });
            let mut record = col;
            record.id = out_id;
            record.field = new_id;
            record.deferred_suppressed = false;
            self.records.push(record);
            // Principal columns outside collections start after the entries before; the
            // other columns have no elements for them.
            let reps = principal_reps(&self.fields, &self.records, out_id);
            let start = reps.map_or(0, |r| r * before);
            self.records[out_id as usize].first_element = start;
            self.columns[out_id as usize].start = start;
        }
        for &child in &f.children {
            self.add_field(d, child, Some(new_id), at, field_map)?;
        }
        Ok(())
    }

    /// The output physical column of column `physical` of `d`, whose field is mapped.
    fn output_column(
        &self,
        d: &Descriptor,
        physical: u32,
        field_map: &HashMap<u32, u32>,
    ) -> Result<u32> {
        let field = d.columns[physical as usize].field;
        let index = physical_columns(&d.fields[field as usize])
            .iter()
            .position(|&c| c == physical);
        let out = field_map
            .get(&field)
            .zip(index)
            .and_then(|(&o, i)| physical_columns(&self.fields[o as usize]).get(i).copied());
        out.ok_or_else(|| {
            Error::InvalidArgument(format!(
                "RNTuple '{}': an alias column of field '{}' names a column outside the merge",
                self.path,
                d.field_path(field)
            ))
        })
    }
}

/// The output schema and one more input, compared field by field.
struct Pair<'a> {
    out: &'a Builder<'a>,
    /// The input the compared output field came from.
    earlier: &'a str,
    file: &'a str,
    d: &'a Descriptor,
}

impl Pair<'_> {
    /// An error unless the input's field `theirs` agrees with output field `ours` (type,
    /// structure, columns, subfields); records matched fields in `field_map`.
    fn check_field(&self, ours: u32, theirs: u32, field_map: &mut HashMap<u32, u32>) -> Result<()> {
        let (fields, d) = (&self.out.fields, self.d);
        let (a, b) = (&fields[ours as usize], &d.fields[theirs as usize]);
        let name = qualified_name(fields, ours);
        let differ = |what: String| {
            Error::InvalidArgument(format!(
                "RNTuple '{}' field '{name}' differs between {} and {}: {what}",
                self.out.path, self.earlier, self.file
            ))
        };
        if a.name != b.name {
            return Err(differ(format!("subfield '{}' is '{}'", a.name, b.name)));
        }
        let shape = |f: &FieldRecord| {
            (
                f.type_name.clone(),
                f.role,
                f.type_version,
                f.field_version,
                f.array_size,
                f.children.len(),
            )
        };
        if shape(a) != shape(b) {
            return Err(differ(format!(
                "'{}' ({:?}, {} subfields) against '{}' ({:?}, {} subfields)",
                a.type_name,
                a.role,
                a.children.len(),
                b.type_name,
                b.role,
                b.children.len()
            )));
        }
        if let (Some(x), Some(y)) = (a.type_checksum, b.type_checksum) {
            if x != y {
                return Err(differ("the type checksums differ".into()));
            }
        }
        let sources = (
            a.source_field.map(|s| qualified_name(fields, s)),
            b.source_field.map(|s| d.field_path(s)),
        );
        if sources.0 != sources.1 {
            return Err(differ(format!(
                "projected from {:?} against {:?}",
                sources.0, sources.1
            )));
        }
        let stored = |c: &ColumnRecord| (c.type_id, c.bits, c.representation, c.value_range);
        let (ours_cols, theirs_cols) = (physical_columns(a), physical_columns(b));
        let same_columns = ours_cols.len() == theirs_cols.len()
            && ours_cols.iter().zip(&theirs_cols).all(|(&o, &t)| {
                stored(&self.out.records[o as usize]) == stored(&d.columns[t as usize])
            });
        if !same_columns {
            return Err(differ("the columns differ".into()));
        }
        field_map.insert(theirs, ours);
        for (&x, &y) in a.children.iter().zip(&b.children) {
            self.check_field(x, y, field_map)?;
        }
        Ok(())
    }
}

/// The physical (not alias) columns of a field, in ID order.
fn physical_columns(f: &FieldRecord) -> Vec<u32> {
    f.columns
        .iter()
        .filter(|c| !c.alias)
        .map(|c| c.physical)
        .collect()
}

/// Elements per entry of column `c`'s default value: for the principal (first) column of
/// a field outside any collection or variant, the product of the repetitions of the field
/// and its ancestors; `None` for other columns (which then hold no elements) and for
/// streamer fields (which have no default).
fn principal_reps(fields: &[FieldRecord], records: &[ColumnRecord], c: u32) -> Option<u64> {
    let owner = &fields[records[c as usize].field as usize];
    let principal = owner.columns.iter().find(|r| !r.alias).map(|r| r.physical);
    if principal != Some(c) || owner.role == Role::Streamer {
        return None;
    }
    let mut reps = owner.array_size.unwrap_or(1).max(1);
    let mut f = owner;
    while !f.is_top_level() {
        f = &fields[f.parent as usize];
        if matches!(f.role, Role::Collection | Role::Variant) {
            return None;
        }
        reps = reps.checked_mul(f.array_size.unwrap_or(1).max(1))?;
    }
    Some(reps)
}

/// `a.b.c`: the field's name with its ancestors'.
fn qualified_name(fields: &[FieldRecord], id: u32) -> String {
    let mut names = vec![fields[id as usize].name.as_str()];
    let mut f = &fields[id as usize];
    while !f.is_top_level() {
        f = &fields[f.parent as usize];
        names.push(&f.name);
    }
    names.reverse();
    names.join(".")
}

/// An error unless `other` has `first`'s fields and columns, in the same order.
fn check_same_schema(
    path: &str,
    first: (&str, &Descriptor),
    other: (&str, &Descriptor),
) -> Result<()> {
    let ((fa, a), (fb, b)) = (first, other);
    let differ = |what: String| {
        Error::InvalidArgument(format!(
            "RNTuple '{path}' differs between {fa} and {fb}: {what}"
        ))
    };
    for (i, f) in a.fields.iter().enumerate() {
        let Some(g) = b.fields.get(i) else {
            return Err(differ(format!(
                "field '{}' is missing from the second",
                a.field_path(f.id)
            )));
        };
        let key = |f: &FieldRecord| {
            (
                f.name.clone(),
                f.type_name.clone(),
                f.parent,
                f.role,
                f.array_size,
                f.type_version,
                f.field_version,
            )
        };
        if key(f) != key(g) {
            return Err(differ(format!(
                "field '{}' ({}) is '{}' ({}) in the second",
                a.field_path(f.id),
                f.type_name,
                b.field_path(g.id),
                g.type_name
            )));
        }
    }
    if let Some(g) = b.fields.get(a.fields.len()) {
        return Err(differ(format!(
            "field '{}' is missing from the first",
            b.field_path(g.id)
        )));
    }
    let columns = |d: &Descriptor| -> Vec<(u16, u16, u32, u16)> {
        d.columns
            .iter()
            .map(|c| (c.type_id, c.bits, c.field, c.representation))
            .collect()
    };
    if columns(a) != columns(b) {
        return Err(differ("the fields' columns differ".into()));
    }
    Ok(())
}

/// Serializes a field record (the layout of the header's field list).
fn field_record(s: &mut Serializer, f: &FieldRecord) {
    let flags = u16::from(f.array_size.is_some())
        | u16::from(f.source_field.is_some()) << 1
        | u16::from(f.type_checksum.is_some()) << 2;
    let role = match f.role {
        Role::Leaf => 0,
        Role::Collection => 1,
        Role::Record => 2,
        Role::Variant => 3,
        Role::Streamer => 4,
    };
    s.begin_record()
        .u32(f.field_version)
        .u32(f.type_version)
        .u32(f.parent)
        .u16(role)
        .u16(flags)
        .string(&f.name)
        .string(&f.type_name)
        .string(&f.type_alias)
        .string(&f.description);
    if let Some(n) = f.array_size {
        s.u64(n);
    }
    if let Some(source) = f.source_field {
        s.u32(source);
    }
    if let Some(sum) = f.type_checksum {
        s.u32(sum);
    }
    s.end_frame();
}

/// Serializes a column record; a column with a first element index is deferred.
fn column_record(s: &mut Serializer, c: &ColumnRecord) {
    let flags = u16::from(c.first_element > 0) | u16::from(c.value_range.is_some()) << 1;
    s.begin_record()
        .u16(c.type_id)
        .u16(c.bits)
        .u32(c.field)
        .u16(flags)
        .u16(c.representation);
    if c.first_element > 0 {
        s.i64(c.first_element as i64);
    }
    if let Some((min, max)) = c.value_range {
        s.raw(&min.to_le_bytes()).raw(&max.to_le_bytes());
    }
    s.end_frame();
}

/// A list frame of an extension record: its item count and its items' bytes.
type List<'a> = Option<(u32, &'a [u8])>;

/// The four lists (fields, columns, alias columns, extra type information) of a
/// schema-extension record frame, `None` for each the record lacks (an empty record), and
/// where the lists end (a later format version may put more after them).
fn extension_lists(ext: &[u8]) -> Option<([List<'_>; 4], usize)> {
    let size = usize::try_from(i64::from_le_bytes(ext.get(..8)?.try_into().ok()?)).ok()?;
    if size < 8 || size > ext.len() {
        return None;
    }
    let mut lists = [None; 4];
    let mut at = 8;
    for list in &mut lists {
        if at >= size {
            break;
        }
        let len = i64::from_le_bytes(ext.get(at..at + 8)?.try_into().ok()?);
        let len = usize::try_from(len.checked_neg()?).ok()?;
        if len < 12 || len > size - at {
            return None;
        }
        let count = u32::from_le_bytes(ext.get(at + 8..at + 12)?.try_into().ok()?);
        *list = Some((count, &ext[at + 12..at + len]));
        at += len;
    }
    Some((lists, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema_adding_one_field() -> MergedSchema {
        let field = FieldRecord {
            id: 1,
            field_version: 0,
            type_version: 0,
            parent: 1,
            role: Role::Leaf,
            name: "pt".into(),
            type_name: "float".into(),
            type_alias: String::new(),
            description: String::new(),
            array_size: None,
            source_field: None,
            type_checksum: None,
            children: Vec::new(),
            columns: Vec::new(),
            extended: true,
        };
        let column = ColumnRecord {
            id: 1,
            type_id: 0x1C,
            ty: None,
            bits: 32,
            field: 1,
            representation: 0,
            first_element: 40,
            deferred_suppressed: false,
            value_range: None,
        };
        MergedSchema {
            columns: Vec::new(),
            added_fields: vec![field],
            added_columns: vec![column],
            added_aliases: Vec::new(),
        }
    }

    /// The item counts of the four lists of an extension record.
    fn counts(ext: &[u8]) -> Vec<u32> {
        extension_lists(ext)
            .unwrap()
            .0
            .iter()
            .map(|l| l.map_or(0, |(n, _)| n))
            .collect()
    }

    #[test]
    fn added_fields_extend_an_empty_or_a_full_extension_record() {
        let schema = schema_adding_one_field();
        // A record without lists (8 bytes: its size) gets all four.
        let bare = 8i64.to_le_bytes();
        let ext = schema.extension(&bare, "f.root").unwrap();
        assert_eq!(counts(&ext), [1, 1, 0, 0]);
        assert_eq!(
            i64::from_le_bytes(ext[..8].try_into().unwrap()),
            ext.len() as i64
        );
        // Lists holding items keep them, the new ones after.
        let mut s = Serializer::new();
        s.begin_record();
        s.begin_list(1);
        field_record(&mut s, &schema.added_fields[0]);
        s.end_frame();
        for _ in 0..3 {
            s.begin_list(0).end_frame();
        }
        s.end_frame();
        let ext = schema.extension(s.bytes(), "f.root").unwrap();
        assert_eq!(counts(&ext), [2, 1, 0, 0]);
        // The deferred column carries its first element index.
        assert!(ext.windows(8).any(|w| w == 40i64.to_le_bytes()));
    }

    #[test]
    fn a_malformed_extension_record_is_an_error_naming_the_file() {
        let schema = schema_adding_one_field();
        let err = schema
            .extension(&500i64.to_le_bytes(), "f.root")
            .unwrap_err();
        assert!(err.to_string().contains("f.root"), "{err}");
    }
}
