//! Who may do what: the WordPress roles and capabilities, checked per object.

use super::post::{Post, Reveal, Status, Visibility};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Subscriber,
    Contributor,
    Author,
    Editor,
    Administrator,
}

impl Role {
    pub const NAMES: [&'static str; 5] = [
        "administrator",
        "editor",
        "author",
        "contributor",
        "subscriber",
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Subscriber => "subscriber",
            Role::Contributor => "contributor",
            Role::Author => "author",
            Role::Editor => "editor",
            Role::Administrator => "administrator",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "subscriber" => Role::Subscriber,
            "contributor" => Role::Contributor,
            "author" => Role::Author,
            "editor" => Role::Editor,
            "administrator" => Role::Administrator,
            _ => return None,
        })
    }
}

/// An authenticated user.
#[derive(Clone, Debug, PartialEq)]
pub struct User {
    pub id: i64,
    pub login: String,
    pub role: Role,
}

/// The identity behind a request: a user, or nobody.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Caller(pub Option<User>);

impl Caller {
    fn role(&self) -> Option<Role> {
        self.0.as_ref().map(|u| u.role)
    }

    fn owns(&self, post: &Post) -> bool {
        self.0.as_ref().is_some_and(|u| u.id == post.author)
    }

    pub fn is_anonymous(&self) -> bool {
        self.0.is_none()
    }

    /// `edit_posts`: create posts and see non-public ones in lists.
    pub fn can_create_posts(&self) -> bool {
        self.role() >= Some(Role::Contributor)
    }

    /// `publish_posts`.
    pub fn can_publish(&self) -> bool {
        self.role() >= Some(Role::Author)
    }

    /// `edit_others_posts` and friends.
    pub fn is_editor(&self) -> bool {
        self.role() >= Some(Role::Editor)
    }

    /// `manage_terms` on the event taxonomies.
    pub fn can_manage_terms(&self) -> bool {
        self.is_editor()
    }

    /// `upload_files`: naming a new image by URL creates a media record.
    pub fn can_upload(&self) -> bool {
        self.role() >= Some(Role::Author)
    }

    /// `edit_post` on one object.
    pub fn can_edit(&self, post: &Post) -> bool {
        if self.is_editor() {
            return true;
        }
        if !self.owns(post) {
            return false;
        }
        match self.role() {
            Some(Role::Author) => true,
            Some(Role::Contributor) => matches!(
                post.status_for_permissions(),
                Some(Status::Draft | Status::Pending)
            ),
            _ => false,
        }
    }

    /// `delete_post` on one object; WordPress maps it like `edit_post`.
    pub fn can_delete(&self, post: &Post) -> bool {
        self.can_edit(post)
    }

    /// `read_post` on one object.
    pub fn can_read(&self, post: &Post, now_utc: i64) -> bool {
        if post.is_published(now_utc) {
            return true;
        }
        if post.status() == Some(Status::Private) {
            return self.is_editor() || (self.owns(post) && self.can_create_posts());
        }
        self.can_edit(post)
    }

    /// The user a new post is written by, if the caller may create posts: the caller,
    /// or the author they name if they are an editor (only editors write for others).
    pub fn author_of_new(&self, named: Option<i64>) -> Option<i64> {
        let user = self.0.as_ref().filter(|_| self.can_create_posts())?;
        match named {
            Some(author) if author != user.id && !self.is_editor() => None,
            Some(author) => Some(author),
            None => Some(user.id),
        }
    }

    /// Whether the caller may write this change of `post`: edit it, and name another
    /// author only as an editor.
    pub fn may_update(&self, post: &Post, author: Option<i64>) -> bool {
        self.can_edit(post) && (author.is_none_or(|a| a == post.author) || self.is_editor())
    }

    /// `read_post` without a password: the caller sees the post and everything it
    /// links to. A password-protected post shows only its title to those who may
    /// not edit it, so its links (terms, venue, organizers) are as hidden as it is.
    pub fn can_read_in_full(&self, post: &Post, now_utc: i64) -> bool {
        self.can_read(post, now_utc) && (post.password.is_empty() || self.can_edit(post))
    }

    /// Whether the caller sees a password-protected post in full: with the right
    /// password, or as someone who may edit it.
    pub fn reveal(&self, post: &Post, password: Option<&str>) -> Reveal {
        if post.password.is_empty()
            || password == Some(post.password.as_str())
            || self.can_edit(post)
        {
            Reveal::Full
        } else {
            Reveal::Blanked
        }
    }

    /// What a list may show this caller.
    pub fn visibility(&self) -> Visibility {
        match &self.0 {
            Some(u) if u.role >= Role::Editor => Visibility::All,
            Some(u) if u.role >= Role::Contributor => Visibility::PublishedOrOwn(u.id),
            _ => Visibility::Published,
        }
    }

    /// WordPress's `scale_back_post_status`: callers who may not publish get `pending`
    /// for `publish`/`future`, and `draft` when they ask for nothing.
    pub fn scale_back(&self, requested: Option<Status>) -> Status {
        match (self.can_publish(), requested) {
            (true, Some(s)) => s,
            (true, None) => Status::Publish,
            (false, Some(Status::Publish | Status::Future)) => Status::Pending,
            (false, Some(Status::Private)) => Status::Pending,
            (false, Some(s)) => s,
            (false, None) => Status::Draft,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(role: Role, id: i64) -> Caller {
        Caller(Some(User {
            id,
            login: "u".into(),
            role,
        }))
    }

    fn post(author: i64, status: &str) -> Post {
        Post {
            author,
            status: status.into(),
            ..Post::default()
        }
    }

    #[test]
    fn contributor_edits_only_own_unpublished_posts() {
        let c = caller(Role::Contributor, 7);
        assert!(c.can_edit(&post(7, "draft")));
        assert!(c.can_edit(&post(7, "pending")));
        assert!(!c.can_edit(&post(7, "publish")));
        assert!(!c.can_edit(&post(8, "draft")));
    }

    #[test]
    fn a_trashed_post_is_edited_as_what_it_was() {
        let c = caller(Role::Contributor, 7);
        let trashed = |before: Option<Status>| Post {
            author: 7,
            status: "trash".into(),
            trashed_status: before,
            ..Post::default()
        };
        assert!(c.can_edit(&trashed(Some(Status::Draft))));
        assert!(c.can_edit(&trashed(Some(Status::Pending))));
        assert!(!c.can_edit(&trashed(Some(Status::Publish))));
        assert!(!c.can_edit(&trashed(None)));
        assert!(caller(Role::Author, 7).can_edit(&trashed(Some(Status::Publish))));
    }

    #[test]
    fn author_edits_own_published_but_not_others() {
        let a = caller(Role::Author, 7);
        assert!(a.can_edit(&post(7, "publish")));
        assert!(!a.can_edit(&post(8, "publish")));
    }

    #[test]
    fn contributor_asking_publish_gets_pending() {
        let c = caller(Role::Contributor, 1);
        assert_eq!(c.scale_back(Some(Status::Publish)), Status::Pending);
        assert_eq!(c.scale_back(None), Status::Draft);
        assert_eq!(caller(Role::Author, 1).scale_back(None), Status::Publish);
    }

    #[test]
    fn only_editors_write_for_others() {
        let author = caller(Role::Author, 7);
        assert_eq!(author.author_of_new(None), Some(7));
        assert_eq!(author.author_of_new(Some(7)), Some(7));
        assert_eq!(author.author_of_new(Some(8)), None);
        assert_eq!(caller(Role::Editor, 1).author_of_new(Some(8)), Some(8));
        assert_eq!(caller(Role::Subscriber, 2).author_of_new(None), None);
        assert_eq!(Caller(None).author_of_new(None), None);
        assert!(author.may_update(&post(7, "publish"), None));
        assert!(!author.may_update(&post(7, "publish"), Some(8)));
        assert!(caller(Role::Editor, 1).may_update(&post(7, "draft"), Some(8)));
    }

    #[test]
    fn drafts_are_readable_by_their_author_and_editors_only() {
        let draft = post(7, "draft");
        assert!(!Caller(None).can_read(&draft, 0));
        assert!(caller(Role::Contributor, 7).can_read(&draft, 0));
        assert!(!caller(Role::Author, 8).can_read(&draft, 0));
        assert!(caller(Role::Editor, 8).can_read(&draft, 0));
    }
}
