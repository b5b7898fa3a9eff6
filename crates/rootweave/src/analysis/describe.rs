//! `Describe`: RDataFrame's text description of a node, laid out as ROOT 6.40 lays it out:
//! where the data come from (the brief part), a few numbers about the graph, and every
//! column with its type and whether it is defined or read.

use super::graph::Frame;
use crate::dataset::AnyReader;
use crate::error::Result;

/// A node's description (`RDFDescription`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    /// Where the data come from: `Dataframe from TChain Events in file f.root`.
    pub brief: String,
    /// The numbers (columns, defined columns, runs, slots) and the table of columns.
    pub full: String,
}

impl Description {
    /// `AsString(shortFormat)`: the brief part alone, or both parts.
    pub fn as_string(&self, short: bool) -> String {
        if short {
            self.brief.clone()
        } else {
            format!("{}\n\n{}\n", self.brief, self.full)
        }
    }
}

impl Frame {
    /// `Describe()`: this node's description, as RDataFrame's `Describe().AsString()` gives
    /// it character for character.
    pub fn describe(&self) -> Result<Description> {
        let names = self.column_names()?;
        let defined = self.defined_column_names();
        let types = names
            .iter()
            .map(|n| self.column_type(n))
            .collect::<Result<Vec<_>>>()?;
        let numbers = [
            ("Columns in total", names.len()),
            ("Columns from defines", defined.len()),
            ("Event loops run", self.runs()),
            ("Processing slots", self.slots()),
        ]
        .map(|(k, v)| (k, v.to_string()));
        let labels: Vec<String> = numbers.iter().map(|(k, _)| k.to_string()).collect();
        let label_width = column_width(&labels);
        // As wide as "Value" or the value that sorts last as text, whichever is wider.
        let value_width = numbers
            .iter()
            .map(|(_, v)| v)
            .max()
            .map_or(0, String::len)
            .max(5);
        let mut out = format!(
            "{:<label_width$}{:<value_width$}{:<label_width$}{:<value_width$}",
            "Property", "Value\n", "--------", "-----\n"
        );
        for (k, v) in &numbers {
            out += &format!("{k:<label_width$}{v:>value_width$}\n");
        }
        out.push('\n');
        let (nw, tw) = (column_width(&names), column_width(&types));
        out += &format!(
            "{:<nw$}{:<tw$}Origin\n{:<nw$}{:<tw$}------\n",
            "Column", "Type", "------", "----"
        );
        let rows: Vec<String> = names
            .iter()
            .zip(&types)
            .map(|(n, t)| {
                let origin = if defined.contains(n) {
                    "Define"
                } else {
                    "Dataset"
                };
                format!("{n:<nw$}{t:<tw$}{origin}")
            })
            .collect();
        out += &rows.join("\n");
        Ok(Description {
            brief: self.describe_dataset()?,
            full: out,
        })
    }

    /// Where the data come from, as ROOT says it of a chain of trees or an RNTuple.
    fn describe_dataset(&self) -> Result<String> {
        let (sources, from_cache) = {
            let g = self.lock();
            (g.dataset.sources().to_vec(), g.from_cache)
        };
        if from_cache {
            return Ok("Dataframe from datasource LazyDS".to_string());
        }
        let Some(reader) = self.first_source()? else {
            return Ok("Empty dataframe".to_string());
        };
        Ok(match &*reader {
            AnyReader::Memory(m) if m.is_empty() => {
                format!("Empty dataframe filling {} rows", m.entries())
            }
            AnyReader::Memory(m) => format!("Dataframe from datasource {}", m.source_name()),
            AnyReader::RNTuple(_) => "Dataframe from datasource RNTupleDS".to_string(),
            AnyReader::TTree(t) => {
                let name = sources[0]
                    .object
                    .clone()
                    .unwrap_or_else(|| t.meta().name.clone());
                let paths: Vec<String> = sources
                    .iter()
                    .map(|s| s.path.display().to_string())
                    .collect();
                match paths.as_slice() {
                    [one] => format!("Dataframe from TChain {name} in file {one}"),
                    many => format!(
                        "Dataframe from TChain {name} in files\n  {}",
                        many.join("\n  ")
                    ),
                }
            }
        })
    }
}

/// The width ROOT gives a column of a table of `cells`: the longest, rounded up to the next
/// multiple of 8 past it.
fn column_width(cells: &[String]) -> usize {
    let longest = cells.iter().map(String::len).max().unwrap_or(0);
    (longest / 8 + 1) * 8
}

#[cfg(test)]
mod tests {
    #[test]
    fn columns_are_as_wide_as_root_makes_them() {
        let w = |cells: &[&str]| {
            super::column_width(&cells.iter().map(|c| c.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(w(&[]), 8);
        assert_eq!(w(&["Float_t"]), 8);
        assert_eq!(w(&["Double_t"]), 16);
        assert_eq!(w(&["ROOT::VecOps::RVec<float>"]), 32);
    }
}
