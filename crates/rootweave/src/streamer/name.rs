//! Member and class names shared between a class layout and every object read by it:
//! cloning one is a reference count, not an allocation (job outputs hold thousands of
//! histograms, each of a few hundred members).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A shared, immutable name.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Name(Arc<str>);

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name(s.into())
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name(s.into())
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Self {
        Name(s.as_str().into())
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        **self == *other.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_compares_and_prints_as_its_text() {
        let n = Name::from("fArray");
        assert!(n == "fArray");
        assert!("fArray" == n);
        let owned = String::from("fArray");
        assert!(n == owned);
        assert!(owned == n);
        assert!(n != "fArrays");
        assert_eq!(n.clone(), Name::from(String::from("fArray")));
        assert_eq!(format!("{n} {n:?}"), "fArray \"fArray\"");
        assert_eq!(n.len(), 6);
    }
}
