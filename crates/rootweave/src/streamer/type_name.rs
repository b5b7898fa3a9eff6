//! C++ type names as ROOT spells them in class layouts and column types: the pieces both
//! the formats' converters and the analysis layer take apart.

/// The prefixes of the list types whose items [`innermost_list_item`] looks through.
const LISTS: [&str; 4] = [
    "ROOT::VecOps::RVec<",
    "ROOT::RVec<",
    "std::vector<",
    "vector<",
];

/// The item type of C++ type `ty`'s innermost list (`vector`s, `std::vector`s and `RVec`s,
/// nested or not: `vector<vector<char> >` gives `char`), or `ty` itself, trimmed, if it is
/// not a list.
pub fn innermost_list_item(ty: &str) -> &str {
    let mut t = ty.trim();
    while let Some(inner) = LISTS.iter().find_map(|p| t.strip_prefix(p)) {
        t = inner.strip_suffix('>').unwrap_or(inner).trim();
    }
    t
}

#[cfg(test)]
mod tests {
    use super::innermost_list_item;

    #[test]
    fn lists_of_any_spelling_and_depth_give_their_items() {
        assert_eq!(innermost_list_item("vector<char>"), "char");
        assert_eq!(innermost_list_item("vector<std::vector<char> >"), "char");
        assert_eq!(
            innermost_list_item("ROOT::VecOps::RVec<ROOT::RVec<signed char>>"),
            "signed char"
        );
        assert_eq!(innermost_list_item(" Char_t "), "Char_t");
        assert_eq!(innermost_list_item("set<int>"), "set<int>");
    }
}
