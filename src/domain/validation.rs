//! Invalid arguments: why each was refused, and the collector that gathers every
//! one of a request so that it hears of them all in one answer, as WordPress
//! validates all arguments before it answers.

use super::message::Msg;

/// Why an argument was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// The reference's generic "Invalid parameter."
    Generic,
    NotOfType(&'static str),
    TooLong(usize),
    TooManyItems(usize),
    NotInEnum(&'static [&'static str]),
    TooDeep,
    /// A page of a search past the matches it pages through (its depth).
    PastSearchDepth(u64),
    /// A specific rule, with its code for `data.details`.
    Rule {
        code: &'static str,
        msg: Msg,
    },
}

impl Reason {
    /// The code reported in `data.details`; `None` for the generic reason.
    pub fn code(&self) -> Option<&'static str> {
        match self {
            Reason::Generic => None,
            Reason::NotOfType(_) => Some("rest_invalid_type"),
            Reason::TooLong(_) => Some("rest_too_long"),
            Reason::TooManyItems(_) => Some("rest_too_many_items"),
            Reason::NotInEnum(_) => Some("rest_not_in_enum"),
            Reason::TooDeep => Some("rest_too_deep"),
            Reason::PastSearchDepth(_) => Some("rest_search_too_deep"),
            Reason::Rule { code, .. } => Some(code),
        }
    }
}

/// One refused argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Invalid {
    pub name: String,
    pub reason: Reason,
}

impl Invalid {
    /// Refused with the generic reason.
    pub fn param(name: &str) -> Invalid {
        Invalid {
            name: name.to_string(),
            reason: Reason::Generic,
        }
    }

    /// Refused by a specific rule.
    pub fn because(name: &str, code: &'static str, msg: Msg) -> Invalid {
        Invalid {
            name: name.to_string(),
            reason: Reason::Rule { code, msg },
        }
    }
}

/// An error that may say some arguments are invalid (as opposed to, say, a
/// database that cannot be reached).
pub trait MaybeInvalid: Sized + From<Vec<Invalid>> {
    /// The invalid arguments it reports, or the error itself when it reports none.
    fn into_invalid(self) -> Result<Vec<Invalid>, Self>;
}

impl MaybeInvalid for Vec<Invalid> {
    fn into_invalid(self) -> Result<Vec<Invalid>, Self> {
        Ok(self)
    }
}

impl MaybeInvalid for Invalid {
    fn into_invalid(self) -> Result<Vec<Invalid>, Self> {
        Ok(vec![self])
    }
}

impl From<Vec<Invalid>> for Invalid {
    fn from(mut list: Vec<Invalid>) -> Invalid {
        list.pop().unwrap_or_else(|| Invalid::param(""))
    }
}

/// The invalid arguments of one request, gathered so that it hears of every one.
#[derive(Debug, Default)]
pub struct Problems(Vec<Invalid>);

impl Problems {
    /// Starts with arguments already refused (by their declared type, say).
    pub fn new(already: &[Invalid]) -> Problems {
        Problems(already.to_vec())
    }

    /// The value of a check that passed; `None` after noting its invalid arguments.
    /// Any other error ends the request, unless arguments were found invalid
    /// already: a 400 comes before permission and existence, as in the reference.
    pub fn check<T, E: MaybeInvalid>(&mut self, result: Result<T, E>) -> Result<Option<T>, E> {
        let error = match result {
            Ok(v) => return Ok(Some(v)),
            Err(e) => e,
        };
        match error.into_invalid() {
            Ok(list) => {
                for i in list {
                    if !self.0.iter().any(|seen| seen.name == i.name) {
                        self.0.push(i);
                    }
                }
                Ok(None)
            }
            Err(other) if self.0.is_empty() => Err(other),
            Err(_) => Err(E::from(std::mem::take(&mut self.0))),
        }
    }

    /// Notes an invalid argument.
    pub fn add(&mut self, invalid: Invalid) {
        if !self.has(&invalid.name) {
            self.0.push(invalid);
        }
    }

    pub fn has(&self, name: &str) -> bool {
        self.0.iter().any(|i| i.name == name)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every invalid argument, if there is one.
    pub fn finish<E: From<Vec<Invalid>>>(self) -> Result<(), E> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(E::from(self.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Error {
        Invalid(Vec<Invalid>),
        Down,
    }

    impl From<Vec<Invalid>> for Error {
        fn from(list: Vec<Invalid>) -> Error {
            Error::Invalid(list)
        }
    }

    impl MaybeInvalid for Error {
        fn into_invalid(self) -> Result<Vec<Invalid>, Self> {
            match self {
                Error::Invalid(list) => Ok(list),
                other => Err(other),
            }
        }
    }

    #[test]
    fn every_invalid_argument_is_kept_once_and_comes_before_other_errors() {
        let mut p = Problems::new(&[Invalid::param("a")]);
        assert_eq!(
            p.check::<(), _>(Err(Error::Invalid(vec![Invalid::param("b")]))),
            Ok(None)
        );
        assert_eq!(
            p.check::<(), _>(Err(Error::Invalid(vec![Invalid::param("a")]))),
            Ok(None)
        );
        assert_eq!(p.check(Ok::<_, Error>(5)), Ok(Some(5)));
        let names = |e: Error| match e {
            Error::Invalid(list) => list.into_iter().map(|i| i.name).collect::<Vec<_>>(),
            Error::Down => vec![],
        };
        let other = p.check::<(), _>(Err(Error::Down)).unwrap_err();
        assert_eq!(names(other), ["a", "b"], "a 400 wins over another error");
        let mut clean = Problems::default();
        assert_eq!(clean.check::<(), _>(Err(Error::Down)), Err(Error::Down));
        assert_eq!(clean.finish::<Error>(), Ok(()));
    }
}
