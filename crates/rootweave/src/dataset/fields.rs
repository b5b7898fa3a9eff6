//! The fields an event loop reads of one source: those it needs, and those it takes only
//! where the source has them (RDataFrame's columns that may be missing from some files).

/// The fields to read of a source. A source without one of `needed` is an error naming it;
/// one without some of `optional` is read without them, and its batches' arrays lack them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fields<'f> {
    /// Read from every source.
    pub needed: &'f [&'f str],
    /// Read where the source has them.
    pub optional: &'f [&'f str],
    /// Whether these are all the fields read, none when both lists are empty (an event
    /// loop that only counts entries); otherwise empty lists read every field a read of
    /// the whole source returns.
    pub exact: bool,
}

impl<'f> Fields<'f> {
    /// `needed`, none optional (every field if empty).
    pub fn needed(needed: &'f [&'f str]) -> Self {
        Fields {
            needed,
            optional: &[],
            exact: false,
        }
    }

    /// Exactly `needed` and `optional`: no field at all if both are empty.
    pub fn exactly(needed: &'f [&'f str], optional: &'f [&'f str]) -> Self {
        Fields {
            needed,
            optional,
            exact: true,
        }
    }

    /// Whether no field is to be read at all.
    pub fn nothing(&self) -> bool {
        self.exact && self.needed.is_empty() && self.optional.is_empty()
    }

    /// The fields to plan in a source whose readable names are `has`: the needed ones,
    /// then the optional ones it has.
    pub fn in_source(&self, has: &[String]) -> Vec<&'f str> {
        let present = |f: &&str| has.iter().any(|h| h == f);
        let optional = self.optional.iter().copied().filter(present);
        self.needed.iter().copied().chain(optional).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_fields_are_planned_where_the_source_has_them() {
        let has = vec!["x".to_string(), "y".to_string()];
        let fields = Fields {
            exact: true,
            needed: &["y"],
            optional: &["z", "x"],
        };
        assert_eq!(fields.in_source(&has), vec!["y", "x"]);
        assert_eq!(Fields::needed(&["q"]).in_source(&has), vec!["q"]);
    }
}
