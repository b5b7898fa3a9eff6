//! The standard collections other than `std::vector` whose items both formats store as a
//! vector's: sets, lists and deques, told apart by their class names.

/// A standard collection besides `std::vector`, stored in both formats as a vector's items
/// are: only the class name tells it apart (a set's items are kept as read, in the set's
/// order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdCollection {
    /// `std::set<T>`
    Set,
    /// `std::multiset<T>`
    MultiSet,
    /// `std::unordered_set<T>`
    UnorderedSet,
    /// `std::unordered_multiset<T>`
    UnorderedMultiSet,
    /// `std::list<T>` (TTrees only)
    List,
    /// `std::deque<T>` (TTrees only)
    Deque,
}

impl StdCollection {
    /// The template's name without `std::` (`set`, `unordered_multiset`).
    pub fn name(self) -> &'static str {
        match self {
            StdCollection::Set => "set",
            StdCollection::MultiSet => "multiset",
            StdCollection::UnorderedSet => "unordered_set",
            StdCollection::UnorderedMultiSet => "unordered_multiset",
            StdCollection::List => "list",
            StdCollection::Deque => "deque",
        }
    }

    /// The collection C++ type name `type_name` is (`std::set<int>`, `set<int>`), and its
    /// item's type name (`int`).
    pub fn of_type_name(type_name: &str) -> Option<(StdCollection, &str)> {
        let t = type_name.trim();
        let t = t.strip_prefix("std::").unwrap_or(t);
        let (template, rest) = t.split_once('<')?;
        let item = rest.strip_suffix('>')?.trim();
        Some((StdCollection::of_name(template.trim())?, item))
    }

    /// The collection a template's name (`set`, `unordered_multiset`, without `std::`) is.
    pub fn of_name(name: &str) -> Option<StdCollection> {
        [
            StdCollection::Set,
            StdCollection::MultiSet,
            StdCollection::UnorderedSet,
            StdCollection::UnorderedMultiSet,
            StdCollection::List,
            StdCollection::Deque,
        ]
        .into_iter()
        .find(|k| k.name() == name)
    }

    /// Whether ROOT's RNTuple has a field for this collection: the sets do; lists and
    /// deques (which ROOT 6.40's snapshots refuse) do not.
    pub fn in_rntuple(self) -> bool {
        !matches!(self, StdCollection::List | StdCollection::Deque)
    }
}

#[cfg(test)]
mod tests {
    use super::StdCollection;

    #[test]
    fn collections_are_named_by_their_cpp_type_names() {
        use StdCollection as C;
        let of = StdCollection::of_type_name;
        assert_eq!(of("set<int>"), Some((C::Set, "int")));
        assert_eq!(of(" std::multiset<float> "), Some((C::MultiSet, "float")));
        assert_eq!(of("unordered_set<long>"), Some((C::UnorderedSet, "long")));
        assert_eq!(
            of("std::unordered_multiset<int>").map(|c| c.0),
            Some(C::UnorderedMultiSet)
        );
        assert_eq!(of("list<double>"), Some((C::List, "double")));
        assert_eq!(of("deque<short>"), Some((C::Deque, "short")));
        assert_eq!(of("vector<int>"), None);
        assert_eq!(of("map<int,float>"), None);
        assert_eq!(of("set"), None);
        assert_eq!(StdCollection::of_name("deque"), Some(C::Deque));
        assert_eq!(StdCollection::of_name("std::set"), None);
        assert!(C::Set.in_rntuple() && !C::List.in_rntuple() && !C::Deque.in_rntuple());
    }
}
