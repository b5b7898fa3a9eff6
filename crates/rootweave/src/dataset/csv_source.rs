//! CSV text files read into columns in memory as ROOT's `RDF::FromCSV` (its `RCsvDS`) reads
//! them: the same options, the same cells, the same four column types inferred from the
//! same rules, so that a graph over a CSV file gives ROOT's results. What ROOT's reader does
//! not define (records with more or fewer fields than the header, names given twice), it
//! refuses here with the file, line and byte offset.

use std::path::Path;

use crate::array::Array;
use crate::error::{Error, Result};
use crate::io::open_source;

use super::MemoryColumns;

/// What RDataFrame calls the data source of a CSV file's columns (`Describe` tells it).
pub const CSV_SOURCE_NAME: &str = "RCsv";

/// The bytes read from a CSV file at a time.
const READ_PIECE: u64 = 16 << 20;

/// The most data records whose cells are looked at, after the first record's, for a value
/// that tells a column's type when the first record's cell is empty (as ROOT looks).
const INFERENCE_LOOKAHEAD: usize = 10;

/// A CSV column's type, as `RCsvDS` names them with one letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvType {
    /// `bool` (`'O'`): `true` and `false`.
    Bool,
    /// `double` (`'D'`).
    Double,
    /// `Long64_t` (`'L'`).
    Long64,
    /// `std::string` (`'T'`): anything else.
    Text,
}

impl CsvType {
    /// The type of ROOT's letter (`O`, `D`, `L`, `T`), or an error naming it.
    pub fn from_letter(letter: &str) -> Result<CsvType> {
        Ok(match letter {
            "O" => CsvType::Bool,
            "D" => CsvType::Double,
            "L" => CsvType::Long64,
            "T" => CsvType::Text,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "CSV column type '{letter}' is not one of 'O' (bool), 'D' (double), \
                     'L' (Long64_t), 'T' (std::string)"
                )))
            }
        })
    }

    /// The C++ type RDataFrame gives the column.
    pub fn cpp_name(self) -> &'static str {
        match self {
            CsvType::Bool => "bool",
            CsvType::Double => "double",
            CsvType::Long64 => "Long64_t",
            CsvType::Text => "std::string",
        }
    }
}

/// How a CSV file is read: `RCsvDS::ROptions`, with ROOT's defaults.
#[derive(Debug, Clone)]
pub struct CsvOptions {
    /// Whether the first line read holds the columns' names (else `Col0`, `Col1`, ...).
    pub headers: bool,
    /// The byte between fields.
    pub delimiter: u8,
    /// Whether white space is cut from the start of every line.
    pub left_trim: bool,
    /// Whether white space is cut from the end of every line (after its comment).
    pub right_trim: bool,
    /// Whether empty lines are left out (else one is a record of no fields: an error).
    pub skip_blank_lines: bool,
    /// Lines of the file left out at its start.
    pub skip_first_lines: u64,
    /// Lines of the file left out at its end.
    pub skip_last_lines: u64,
    /// The byte from which the rest of a line is a comment; a line starting with it (after
    /// trimming) is left out.
    pub comment: Option<u8>,
    /// Names replacing the header's (or `ColN`), one per column, when not empty.
    pub column_names: Vec<String>,
    /// Types imposed on named columns instead of inferred.
    pub column_types: Vec<(String, CsvType)>,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            headers: true,
            delimiter: b',',
            left_trim: false,
            right_trim: false,
            skip_blank_lines: true,
            skip_first_lines: 0,
            skip_last_lines: 0,
            comment: None,
            column_names: Vec::new(),
            column_types: Vec::new(),
        }
    }
}

/// A CSV file's columns, in the file's order, and ROOT's warning when integer or boolean
/// columns had empty cells (stored as 0 and `false`).
#[derive(Debug, Clone, PartialEq)]
pub struct CsvTable {
    /// The columns: `Array::Int64` (`Long64_t`), `Float64`, `Bool` or `String`.
    pub columns: Vec<(String, Array)>,
    /// ROOT's warning about empty cells of `Long64_t` and `bool` columns, if any.
    pub warning: Option<String>,
}

impl CsvTable {
    /// The columns' types, in order, as their arrays hold them.
    pub fn types(&self) -> Vec<CsvType> {
        self.columns
            .iter()
            .map(|(_, a)| match a {
                Array::Int64(_) => CsvType::Long64,
                Array::Bool(_) => CsvType::Bool,
                Array::String { .. } => CsvType::Text,
                _ => CsvType::Double,
            })
            .collect()
    }

    /// The columns as a source in memory for a graph ([`crate::dataset::Source::in_memory`]),
    /// its data source named as ROOT names a CSV file's.
    pub fn into_memory_columns(self) -> Result<MemoryColumns> {
        Ok(MemoryColumns::new(self.columns)?.with_source_name(CSV_SOURCE_NAME))
    }
}

/// Reads CSV file `path` (a local path, or an `http(s)://` or `root://` URL, as ROOT's
/// `RRawFile` opens them) as `RDF::FromCSV` reads it with `options`.
pub fn read_csv(path: &Path, options: &CsvOptions) -> Result<CsvTable> {
    let source = open_source(path)?;
    let size = source.size()?;
    // Read in pieces, so that memory follows the bytes that arrive, not a size a server
    // claims.
    let mut text = Vec::new();
    while (text.len() as u64) < size {
        let start = text.len();
        let piece = (size - start as u64).min(READ_PIECE) as usize;
        text.resize(start + piece, 0);
        source.read_exact_at(&mut text[start..], start as u64)?;
    }
    parse_csv(&text, &source.name(), options)
}

/// One cell's text as ROOT's parser leaves it: `None` for an empty cell or `nan`/`NaN`.
type Cell = Option<Vec<u8>>;

/// A line kept for reading: its number in the file (from 1), its byte offset, its text.
struct Line<'a> {
    number: usize,
    offset: usize,
    text: &'a [u8],
}

/// Parses CSV text `text` (the contents of `file`, which errors name) as
/// [`read_csv`] does: the header and the first records (for the types) cell by cell, then
/// every record's cells straight into their columns.
pub fn parse_csv(text: &[u8], file: &str, options: &CsvOptions) -> Result<CsvTable> {
    let error = |line: Option<&Line<'_>>, message: String| Error::Format {
        file: file.to_string(),
        object: line.map_or("CSV file".to_string(), |l| format!("CSV line {}", l.number)),
        offset: line.map_or(0, |l| l.offset as u64),
        message,
    };
    let mut records = kept_lines(text, options);
    let header = if options.headers {
        let line = records
            .next()
            .ok_or_else(|| error(None, "no header line".to_string()))?;
        let names = owned_cells(line.text, options.delimiter);
        Some(names.into_iter().map(cell_name).collect::<Vec<_>>())
    } else {
        None
    };
    let Some(first) = records.clone().next() else {
        return Err(error(
            None,
            "no data line to infer the columns' types from".to_string(),
        ));
    };
    let count = match &header {
        Some(names) => names.len(),
        None => owned_cells(first.text, options.delimiter).len(),
    };
    let names = column_names(header, count, options).map_err(|m| error(None, m))?;
    let leading: Vec<Vec<Cell>> = records
        .clone()
        .take(1 + INFERENCE_LOOKAHEAD)
        .map(|l| owned_cells(l.text, options.delimiter))
        .collect();
    let types: Vec<CsvType> = names
        .iter()
        .enumerate()
        .map(
            |(k, name)| match options.column_types.iter().find(|(n, _)| n == name) {
                Some((_, ty)) => *ty,
                None => inferred_type(&leading, k),
            },
        )
        .collect();
    // Room for every line, but no more records than the text can hold (each has a
    // delimiter between its cells): a file's claims never reserve more than its size.
    let most = text.len() / count.saturating_sub(1).max(1) + 1;
    let room = records.size_hint().1.unwrap_or(0).min(most);
    let mut builders: Vec<Builder> = types.iter().map(|&ty| Builder::new(ty, room)).collect();
    let mut scratch = Vec::new();
    for line in records {
        let cells =
            for_each_cell(
                line.text,
                options.delimiter,
                &mut scratch,
                |k, cell| match builders.get_mut(k) {
                    Some(b) => b
                        .push(cell)
                        .map_err(|m| format!("column '{}': {m}", names[k])),
                    None => Ok(()),
                },
            )
            .map_err(|m| error(Some(&line), m))?;
        if cells != count {
            return Err(error(
                Some(&line),
                format!("{cells} fields where the file has {count} columns"),
            ));
        }
    }
    let mut columns = Vec::with_capacity(count);
    let mut empty = Vec::new();
    for ((name, builder), &ty) in names.into_iter().zip(builders).zip(&types) {
        let (array, had_empty) = builder.finish();
        if had_empty {
            empty.push((name.clone(), ty));
        }
        columns.push((name, array));
    }
    Ok(CsvTable {
        columns,
        warning: empty_cells_warning(&empty),
    })
}

/// The lines `options` keep, trimmed and without their comments, found as they are read
/// (only their number is counted first, for the lines left out at the end).
fn kept_lines<'a>(
    text: &'a [u8],
    options: &'a CsvOptions,
) -> impl Iterator<Item = Line<'a>> + Clone + 'a {
    let total = text.iter().filter(|&&b| b == b'\n').count()
        + usize::from(!text.is_empty() && !text.ends_with(b"\n"));
    let first = usize::try_from(options.skip_first_lines).unwrap_or(usize::MAX);
    let last = usize::try_from(options.skip_last_lines).unwrap_or(usize::MAX);
    let stop = total.saturating_sub(last);
    physical_lines(text)
        .enumerate()
        .take(stop)
        .skip(first)
        .filter_map(move |(number, (offset, line))| {
            let text = kept_text(line, options)?;
            Some(Line {
                number: number + 1,
                offset,
                text,
            })
        })
}

/// The file's lines with their byte offsets, without their `\n` (or `\r\n`).
fn physical_lines(text: &[u8]) -> impl Iterator<Item = (usize, &[u8])> + Clone {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = text[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |p| start + p);
        let line = &text[start..end];
        let at = start;
        start = end + 1;
        Some((at, line.strip_suffix(b"\r").unwrap_or(line)))
    })
}

/// What is read of a line: trimmed and cut at its comment as `options` ask, or None for a
/// line left out (a comment, or blank).
fn kept_text<'a>(mut line: &'a [u8], options: &CsvOptions) -> Option<&'a [u8]> {
    if options.left_trim {
        line = line.trim_ascii_start();
    }
    if let Some(c) = options.comment {
        if line.first() == Some(&c) {
            return None;
        }
        if let Some(at) = line.iter().position(|&b| b == c) {
            line = &line[..at];
        }
    }
    if options.right_trim {
        line = line.trim_ascii_end();
    }
    (!(options.skip_blank_lines && line.is_empty())).then_some(line)
}

/// Calls `cell` with the position and text of each of a line's cells as ROOT's `RCsvDS`
/// splits them (`None` for an empty cell, `nan` or `NaN`): a `"` opens or closes quoting
/// (in which delimiters are text), two of them make one `"` anywhere; a line ending with
/// the delimiter has one more, empty, cell. A cell with quotes is unquoted into `scratch`.
/// Returns the number of cells, or `cell`'s complaint.
fn for_each_cell(
    line: &[u8],
    delimiter: u8,
    scratch: &mut Vec<u8>,
    mut cell: impl FnMut(usize, Option<&[u8]>) -> std::result::Result<(), String>,
) -> std::result::Result<usize, String> {
    let mut count = 0;
    let mut i = 0;
    while i < line.len() {
        let start = i;
        let mut quoted = false;
        let mut has_quotes = false;
        while i < line.len() && (line[i] != delimiter || quoted) {
            if line[i] == b'"' {
                has_quotes = true;
                if line.get(i + 1) == Some(&b'"') {
                    i += 1;
                } else {
                    quoted = !quoted;
                }
            }
            i += 1;
        }
        let raw = &line[start..i];
        let value = if has_quotes {
            unquote(raw, scratch);
            &scratch[..]
        } else {
            raw
        };
        let empty = raw.is_empty() || value == b"nan" || value == b"NaN";
        cell(count, (!empty).then_some(value))?;
        count += 1;
        if i + 1 == line.len() && line[i] == delimiter {
            cell(count, None)?;
            count += 1;
        }
        i += 1;
    }
    Ok(count)
}

/// `raw`'s text into `out`: each `""` one `"`, other quotes left out.
fn unquote(raw: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] != b'"' {
            out.push(raw[i]);
        } else if raw.get(i + 1) == Some(&b'"') {
            out.push(b'"');
            i += 1;
        }
        i += 1;
    }
}

/// A line's cells, owned (for the header and the records types are inferred from).
fn owned_cells(line: &[u8], delimiter: u8) -> Vec<Cell> {
    let mut cells = Vec::new();
    let mut scratch = Vec::new();
    let _ = for_each_cell(line, delimiter, &mut scratch, |_, c| {
        cells.push(c.map(<[u8]>::to_vec));
        Ok(())
    });
    cells
}

/// A header cell as a column's name: an empty one is `nan`, as ROOT names it.
fn cell_name(cell: Cell) -> String {
    String::from_utf8_lossy(cell.as_deref().unwrap_or(b"nan")).into_owned()
}

/// The columns' names: the options' if given (as many as columns), else the header's, else
/// `Col0`, `Col1`, ...; names given twice are refused.
fn column_names(
    header: Option<Vec<String>>,
    count: usize,
    options: &CsvOptions,
) -> std::result::Result<Vec<String>, String> {
    let names = if !options.column_names.is_empty() {
        if options.column_names.len() != count {
            return Err(format!(
                "{} column names given for a file of {count} columns",
                options.column_names.len()
            ));
        }
        options.column_names.clone()
    } else {
        header.unwrap_or_else(|| (0..count).map(|k| format!("Col{k}")).collect())
    };
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    if let Some(name) = names.iter().find(|n| !seen.insert(n.as_str())) {
        return Err(format!("column name '{name}' given twice"));
    }
    if let Some((name, _)) = options
        .column_types
        .iter()
        .find(|(n, _)| !names.contains(n))
    {
        return Err(format!(
            "a type is given for column '{name}', which the file does not have (its columns: {})",
            names.join(", ")
        ));
    }
    Ok(names)
}

/// Column `k`'s type as ROOT infers it from the leading records: from the first one's
/// cell, or when that is empty the first non-empty one of the next ten (`double` if none
/// is).
fn inferred_type(leading: &[Vec<Cell>], k: usize) -> CsvType {
    let cell = leading
        .iter()
        .find_map(|cells| cells.get(k).and_then(|c| c.as_deref()));
    match cell {
        None => CsvType::Double,
        Some(text) if is_integer(text) => CsvType::Long64,
        Some(text) if is_decimal(text) => CsvType::Double,
        Some(b"true" | b"false") => CsvType::Bool,
        Some(_) => CsvType::Text,
    }
}

/// Whether `text` is `[-+]?[0-9]+` whole.
fn is_integer(text: &[u8]) -> bool {
    let digits = text
        .strip_prefix(b"-")
        .or(text.strip_prefix(b"+"))
        .unwrap_or(text);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// Whether `text` is a number with a decimal point as ROOT's inference reads one: digits
/// around a point (at least one), or digits after a point then an exponent (`e`, `d`, `q`).
fn is_decimal(text: &[u8]) -> bool {
    let rest = text
        .strip_prefix(b"-")
        .or(text.strip_prefix(b"+"))
        .unwrap_or(text);
    let Some(point) = rest.iter().position(|&b| b == b'.') else {
        return false;
    };
    let (before, after) = (&rest[..point], &rest[point + 1..]);
    if !before.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let fraction = after.iter().take_while(|b| b.is_ascii_digit()).count();
    let exponent = &after[fraction..];
    if exponent.is_empty() {
        return fraction > 0 || !before.is_empty();
    }
    let Some((mark, power)) = exponent.split_first() else {
        return false;
    };
    let power = power
        .strip_prefix(b"-")
        .or(power.strip_prefix(b"+"))
        .unwrap_or(power);
    fraction > 0
        && b"eEdDqQ".contains(mark)
        && !power.is_empty()
        && power.iter().all(u8::is_ascii_digit)
}

/// A column being filled cell by cell in its type, and whether an empty cell was stored as
/// ROOT stores one in a `Long64_t` or `bool` column (0, `false`).
enum Builder {
    Double(Vec<f64>),
    Long64(Vec<i64>, bool),
    Bool(Vec<bool>, bool),
    Text { offsets: Vec<u64>, bytes: Vec<u8> },
}

impl Builder {
    /// An empty column of type `ty` with room for `records` cells.
    fn new(ty: CsvType, records: usize) -> Builder {
        match ty {
            CsvType::Double => Builder::Double(Vec::with_capacity(records)),
            CsvType::Long64 => Builder::Long64(Vec::with_capacity(records), false),
            CsvType::Bool => Builder::Bool(Vec::with_capacity(records), false),
            CsvType::Text => {
                let mut offsets = Vec::with_capacity(records + 1);
                offsets.push(0);
                Builder::Text {
                    offsets,
                    bytes: Vec::new(),
                }
            }
        }
    }

    /// Adds a cell (`None`: empty), or says why it is not of the column's type.
    fn push(&mut self, cell: Option<&[u8]>) -> std::result::Result<(), String> {
        match (self, cell) {
            (Builder::Double(v), None) => v.push(f64::NAN),
            (Builder::Double(v), Some(text)) => v.push(stod(text)?),
            (Builder::Long64(v, empty), None) => {
                v.push(0);
                *empty = true;
            }
            (Builder::Long64(v, _), Some(text)) => v.push(stoll(text)?),
            (Builder::Bool(v, empty), None) => {
                v.push(false);
                *empty = true;
            }
            (Builder::Bool(v, _), Some(text)) => v.push(read_bool(text)),
            (Builder::Text { offsets, bytes }, cell) => {
                bytes.extend_from_slice(cell.unwrap_or(b"nan"));
                offsets.push(bytes.len() as u64);
            }
        }
        Ok(())
    }

    /// The column, and whether an empty cell was stored as 0 or `false`.
    fn finish(self) -> (Array, bool) {
        match self {
            Builder::Double(v) => (Array::Float64(v), false),
            Builder::Long64(v, empty) => (Array::Int64(v), empty),
            Builder::Bool(v, empty) => (Array::Bool(v), empty),
            Builder::Text { offsets, bytes } => (Array::String { offsets, bytes }, false),
        }
    }
}

/// `text` with the white space C's `isspace` skips cut from its start.
fn skip_space(text: &[u8]) -> &[u8] {
    let n = text
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .count();
    &text[n..]
}

/// The number `std::stoll` reads from the start of `text` (white space, a sign, digits),
/// or its complaint.
fn stoll(text: &[u8]) -> std::result::Result<i64, String> {
    let rest = skip_space(text);
    let signed = usize::from(matches!(rest.first(), Some(b'-' | b'+')));
    let digits = rest[signed..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let number = std::str::from_utf8(&rest[..signed + digits]).unwrap_or_default();
    if digits == 0 {
        return Err(format!("no integer in '{}'", shown(text)));
    }
    number
        .parse()
        .map_err(|_| format!("'{}' is out of Long64_t's range", shown(text)))
}

/// The number `std::stod` reads from the start of `text` (white space, then a decimal
/// number, `inf`, `infinity` or `nan`), or its complaint (none there, or out of `double`'s
/// range, subnormal numbers included, as `strtod` reports them).
fn stod(text: &[u8]) -> std::result::Result<f64, String> {
    let rest = skip_space(text);
    let signed = usize::from(matches!(rest.first(), Some(b'-' | b'+')));
    let word = |w: &[u8]| {
        rest.len() >= signed + w.len() && rest[signed..signed + w.len()].eq_ignore_ascii_case(w)
    };
    if word(b"infinity") || word(b"inf") || word(b"nan") {
        let value = if word(b"nan") {
            f64::NAN
        } else {
            f64::INFINITY
        };
        return Ok(if rest[0] == b'-' { -value } else { value });
    }
    let digits = |from: usize| {
        rest[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let whole = digits(signed);
    let mut end = signed + whole;
    let mut fraction = 0;
    if rest.get(end) == Some(&b'.') {
        fraction = digits(end + 1);
        end += 1 + fraction;
    }
    if whole + fraction == 0 {
        return Err(format!("no number in '{}'", shown(text)));
    }
    let mantissa = end;
    if matches!(rest.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(rest.get(end + 1), Some(b'-' | b'+')));
        let power = digits(end + 1 + sign);
        if power > 0 {
            end += 1 + sign + power;
        }
    }
    let number = std::str::from_utf8(&rest[..end]).unwrap_or_default();
    let value: f64 = number
        .parse()
        .map_err(|_| format!("no number in '{}'", shown(text)))?;
    let nonzero = rest[..mantissa].iter().any(|b| (b'1'..=b'9').contains(b));
    if value.is_infinite() || (nonzero && (value == 0.0 || value.is_subnormal())) {
        return Err(format!("'{}' is out of double's range", shown(text)));
    }
    Ok(value)
}

/// The `bool` `std::istringstream >> std::boolalpha` reads from `text`: `true` or `false`
/// after white space, anything else `false`.
fn read_bool(text: &[u8]) -> bool {
    skip_space(text).starts_with(b"true")
}

/// A cell's text for messages: at most 40 characters.
fn shown(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.into_owned(),
    }
}

/// ROOT's warning for `Long64_t` and `bool` columns with empty cells.
fn empty_cells_warning(columns: &[(String, CsvType)]) -> Option<String> {
    if columns.is_empty() {
        return None;
    }
    let mut message = String::new();
    for (name, ty) in columns {
        let stored = if *ty == CsvType::Long64 {
            "`0`"
        } else {
            "`false`"
        };
        message.push_str(&format!(
            "Column \"{name}\" of type {} contains empty cell(s) or NaN(s).\n\
             There is no `nan` equivalent for type {}, hence {stored} is stored.\n",
            ty.cpp_name(),
            ty.cpp_name()
        ));
    }
    message.push_str(
        "Please manually set the column type to `double` (with `D`) in `FromCSV` to read \
         NaNs instead.",
    );
    Some(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str, options: &CsvOptions) -> CsvTable {
        parse_csv(text.as_bytes(), "t.csv", options).unwrap()
    }

    fn strings(a: &Array) -> Vec<String> {
        match a {
            Array::String { offsets, bytes } => offsets
                .windows(2)
                .map(|w| String::from_utf8_lossy(&bytes[w[0] as usize..w[1] as usize]).into())
                .collect(),
            other => panic!("not strings: {other:?}"),
        }
    }

    #[test]
    fn cells_quotes_and_types_as_root_s() {
        let t = table(
            "a,b,c,d,e\n1,2.5,true,x y,\n2,,false,\"q,\"\"r\"\"\",7\n 3 ,1e5,True, s ,8\r\n\n4,.5e3,1,,9\n",
            &CsvOptions::default(),
        );
        let types: Vec<_> = t.types().iter().map(|t| t.cpp_name()).collect();
        assert_eq!(
            types,
            ["Long64_t", "double", "bool", "std::string", "Long64_t"]
        );
        assert_eq!(t.columns[0].1, Array::Int64(vec![1, 2, 3, 4]));
        match &t.columns[1].1 {
            Array::Float64(v) => {
                assert_eq!((v[0], v[2], v[3]), (2.5, 100000.0, 500.0));
                assert!(v[1].is_nan());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(t.columns[2].1, Array::Bool(vec![true, false, false, false]));
        assert_eq!(strings(&t.columns[3].1), ["x y", "q,\"r\"", " s ", "nan"]);
        assert_eq!(t.columns[4].1, Array::Int64(vec![0, 7, 8, 9]));
        assert!(t
            .warning
            .unwrap()
            .starts_with("Column \"e\" of type Long64_t"));
    }

    #[test]
    fn options_trim_skip_comment_and_name_lines_whole() {
        let options = CsvOptions {
            headers: false,
            delimiter: b' ',
            left_trim: true,
            right_trim: true,
            skip_first_lines: 1,
            skip_last_lines: 1,
            comment: Some(b'#'),
            column_types: vec![("Col1".into(), CsvType::Double)],
            ..CsvOptions::default()
        };
        let t = table(
            "junk\n# comment\n  1 2 x  # trailing\n\n  3 4 y\nfooter\n",
            &options,
        );
        let names: Vec<_> = t.columns.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Col0", "Col1", "Col2"]);
        assert_eq!(t.columns[1].1, Array::Float64(vec![2.0, 4.0]));
        assert_eq!(strings(&t.columns[2].1), ["x", "y"]);
        let named = CsvOptions {
            column_names: vec!["p".into(), "q".into()],
            ..CsvOptions::default()
        };
        let t = table("a,b,\n1,\"\",x\"y,z\"w\n", &{
            let mut o = named.clone();
            o.column_names.push("r".into());
            o
        });
        assert_eq!(strings(&t.columns[1].1), ["\""]);
        assert_eq!(strings(&t.columns[2].1), ["xy,zw"]);
        let header = table("a,b,\n1,2,\n", &CsvOptions::default());
        assert_eq!(header.columns[2].0, "nan");
    }

    #[test]
    fn numbers_read_as_the_c_library_reads_them() {
        assert_eq!(stoll(b" +5x"), Ok(5));
        assert!(stoll(b"-").is_err() && stoll(b"99999999999999999999").is_err());
        assert_eq!(stod(b" 1.5e3z"), Ok(1500.0));
        assert_eq!(stod(b"-inf"), Ok(f64::NEG_INFINITY));
        assert_eq!(stod(b"7e"), Ok(7.0));
        assert!(stod(b"2.5e400").is_err() && stod(b"1e-310").is_err() && stod(b"x").is_err());
        assert_eq!(stod(b"0e-999"), Ok(0.0));
        assert!(read_bool(b" truex") && !read_bool(b"1") && !read_bool(b"True"));
        assert!(is_decimal(b"1.") && is_decimal(b".5e3") && is_decimal(b"-1.25"));
        assert!(!is_decimal(b"1e5") && !is_decimal(b"1.e5") && !is_decimal(b"."));
    }

    #[test]
    fn files_root_cannot_read_are_refused_with_their_line() {
        let refused = |text: &str, options: &CsvOptions| {
            parse_csv(text.as_bytes(), "t.csv", options)
                .unwrap_err()
                .to_string()
        };
        let o = CsvOptions::default();
        assert!(refused("a,b\n1,2\n3\n", &o).contains("CSV line 3 at byte offset 8"));
        assert!(refused("a,a\n1,2\n", &o).contains("'a' given twice"));
        assert!(refused("a,b\n\n", &o).contains("no data line"));
        assert!(refused("", &o).contains("no header line"));
        assert!(refused("a\n1.5\nx\n", &o).contains("column 'a': no number in 'x'"));
        let names = CsvOptions {
            column_names: vec!["x".into()],
            ..o.clone()
        };
        assert!(refused("a,b\n1,2\n", &names).contains("1 column names given"));
        let types = CsvOptions {
            column_types: vec![("z".into(), CsvType::Bool)],
            ..o.clone()
        };
        assert!(refused("a\n1\n", &types).contains("column 'z'"));
        let blank = CsvOptions {
            skip_blank_lines: false,
            ..o
        };
        assert!(refused("a,b\n1,2\n\n", &blank).contains("0 fields"));
        // A wide header over many short lines reserves room for what the text can hold,
        // not for every line times every column (80 GB here).
        let wide: Vec<String> = (0..100_000).map(|k| format!("c{k}")).collect();
        let text = format!("{}\n{}", wide.join(","), "1\n".repeat(100_000));
        assert!(refused(&text, &CsvOptions::default()).contains("1 fields where the file has"));
        assert!(CsvType::from_letter("X").is_err());
    }
}
