//! C++ type names as ROOT spells them (`"float"`, `"std::vector<float>"`,
//! `"std::uint64_t"`, `"std::array<float,3>"`, `"std::set<std::int32_t>"`, a declared
//! class) into field types; ROOT's
//! aliases (`Float_t`, `Int_t`, ...) and the plain C++ spellings (`int`, `unsigned long`)
//! are taken too, as ROOT normalises them.

use std::collections::HashMap;

use rootweave::array::StdCollection;
use rootweave::rntuple::FieldType;

/// Parses `name` into a field type; `classes` holds the classes declared so far.
pub(crate) fn parse(name: &str, classes: &HashMap<String, FieldType>) -> Result<FieldType, String> {
    let mut parser = Parser {
        text: name,
        at: 0,
        classes,
    };
    let ty = parser.ty()?;
    parser.space();
    if parser.at != name.len() {
        return Err(parser.error("unexpected text after the type"));
    }
    Ok(ty)
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
    classes: &'a HashMap<String, FieldType>,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> String {
        format!("type name '{}': {what} at character {}", self.text, self.at)
    }

    fn space(&mut self) {
        while self.text[self.at..].starts_with(' ') {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.space();
        if self.text[self.at..].starts_with(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(&format!("expected '{c}'")))
        }
    }

    /// A name: words (with `::` and `_`), several for `unsigned long long` and the like.
    fn name(&mut self) -> String {
        self.space();
        let mut words = Vec::new();
        loop {
            let rest = &self.text[self.at..];
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            if len == 0 {
                break;
            }
            let word = &rest[..len];
            words.push(word);
            self.at += len;
            // Only C's integer keywords go on with another word.
            if !matches!(word, "unsigned" | "signed" | "long" | "short") {
                break;
            }
            let before = self.at;
            self.space();
            let next = &self.text[self.at..];
            if !next.starts_with(|c: char| c.is_ascii_alphabetic()) {
                self.at = before;
                break;
            }
        }
        words.join(" ")
    }

    fn ty(&mut self) -> Result<FieldType, String> {
        let start = self.at;
        let name = self.name();
        if name.is_empty() {
            return Err(self.error("expected a type"));
        }
        let bare = name.strip_prefix("std::").unwrap_or(&name);
        if let Some(number) = number(bare) {
            return Ok(number);
        }
        if let Some(kind) = StdCollection::of_name(bare) {
            self.expect('<')?;
            let item = self.ty()?;
            self.expect('>')?;
            return Ok(FieldType::Collection(kind, Box::new(item)));
        }
        Ok(match bare {
            "string" => FieldType::String,
            "vector" | "optional" | "array" | "pair" | "tuple" => {
                self.expect('<')?;
                let first = self.ty()?;
                let ty = match bare {
                    "vector" => FieldType::vector(first),
                    "optional" => FieldType::optional(first),
                    "array" => {
                        self.expect(',')?;
                        self.space();
                        let rest = &self.text[self.at..];
                        let digits = rest
                            .find(|c: char| !c.is_ascii_digit())
                            .unwrap_or(rest.len());
                        let n: usize = rest[..digits]
                            .parse()
                            .map_err(|_| self.error("expected the array's size"))?;
                        self.at += digits;
                        FieldType::array(first, n)
                    }
                    "pair" => {
                        self.expect(',')?;
                        FieldType::pair(first, self.ty()?)
                    }
                    _ => {
                        let mut items = vec![first];
                        while self.eat(',') {
                            items.push(self.ty()?);
                        }
                        FieldType::Tuple(items)
                    }
                };
                self.expect('>')?;
                ty
            }
            _ => match self.classes.get(&name) {
                Some(class) => class.clone(),
                None => {
                    self.at = start;
                    return Err(self.error(&format!(
                        "unknown type '{name}' (declare classes before using them)"
                    )));
                }
            },
        })
    }
}

/// The number types by their ROOT and C++ spellings (`std::` already removed).
fn number(name: &str) -> Option<FieldType> {
    Some(match name {
        "bool" | "Bool_t" => FieldType::Bool,
        "int8_t" | "signed char" => FieldType::Int8,
        "char" | "Char_t" => FieldType::Char,
        "int16_t" | "short" | "short int" | "Short_t" => FieldType::Int16,
        "int32_t" | "int" | "Int_t" => FieldType::Int32,
        "int64_t" | "long" | "long int" | "long long" | "long long int" | "Long64_t" | "Long_t" => {
            FieldType::Int64
        }
        "uint8_t" | "unsigned char" | "UChar_t" | "Byte_t" => FieldType::UInt8,
        "uint16_t" | "unsigned short" | "unsigned short int" | "UShort_t" => FieldType::UInt16,
        "uint32_t" | "unsigned" | "unsigned int" | "UInt_t" => FieldType::UInt32,
        "uint64_t"
        | "unsigned long"
        | "unsigned long int"
        | "unsigned long long"
        | "unsigned long long int"
        | "ULong64_t"
        | "ULong_t" => FieldType::UInt64,
        "float" | "Float_t" => FieldType::Float32,
        "double" | "Double_t" => FieldType::Float64,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootweave::rntuple::Field;

    fn p(name: &str) -> Result<FieldType, String> {
        let mut classes = HashMap::new();
        classes.insert(
            "Hit".to_string(),
            FieldType::class("Hit", 1, vec![Field::new("x", FieldType::Float32)]),
        );
        parse(name, &classes)
    }

    #[test]
    fn root_spellings() {
        assert_eq!(p("float").unwrap(), FieldType::Float32);
        assert_eq!(p("std::uint64_t").unwrap(), FieldType::UInt64);
        assert_eq!(p("ULong64_t").unwrap(), FieldType::UInt64);
        assert_eq!(p("unsigned long long").unwrap(), FieldType::UInt64);
        assert_eq!(p("std::string").unwrap(), FieldType::String);
        assert_eq!(
            p("std::vector<std::vector<float> >").unwrap(),
            FieldType::vector(FieldType::vector(FieldType::Float32))
        );
        assert_eq!(
            p("std::array<double, 3>").unwrap(),
            FieldType::array(FieldType::Float64, 3)
        );
        assert_eq!(
            p("std::pair<int,std::string>").unwrap(),
            FieldType::pair(FieldType::Int32, FieldType::String)
        );
        assert_eq!(
            p("std::vector<Hit>").unwrap().type_name(),
            "std::vector<Hit>"
        );
        // The names written back are ROOT's.
        assert_eq!(
            p("vector<unsigned int>").unwrap().type_name(),
            "std::vector<std::uint32_t>"
        );
        // `char` is a type of its own (a `Char` column); `signed char` is `std::int8_t`.
        assert_eq!(p("Char_t").unwrap().type_name(), "char");
        assert_eq!(
            p("std::vector<char>").unwrap().type_name(),
            "std::vector<char>"
        );
        assert_eq!(p("signed char").unwrap().type_name(), "std::int8_t");
        // Sets (and, for TTrees, lists and deques) by ROOT's names.
        assert_eq!(
            p("std::unordered_multiset<int>").unwrap().type_name(),
            "std::unordered_multiset<std::int32_t>"
        );
        assert_eq!(
            p("set<std::string>").unwrap(),
            FieldType::Collection(StdCollection::Set, Box::new(FieldType::String))
        );
        assert_eq!(
            p("std::deque<Short_t>").unwrap().type_name(),
            "std::deque<std::int16_t>"
        );
        assert!(p("std::set<flaot>").is_err() && p("std::set<int").is_err());
    }

    #[test]
    fn errors_name_the_type_and_position() {
        let e = p("std::vector<flaot>").unwrap_err();
        assert!(
            e.contains("unknown type 'flaot'") && e.contains("character 12"),
            "{e}"
        );
        let e = p("std::vector<float").unwrap_err();
        assert!(e.contains("expected '>'"), "{e}");
        let e = p("float x").unwrap_err();
        assert!(e.contains("unexpected text"), "{e}");
        assert!(p("").is_err());
        assert!(p("std::array<float,>").is_err());
    }
}
