//! Table and column names, for the query builder.

use sea_query::Iden;

#[derive(Iden, Clone, Copy)]
pub enum SchemaMigrations {
    Table,
    Version,
    AppliedUtc,
}

#[derive(Iden, Clone, Copy)]
pub enum Users {
    Table,
    Id,
    Login,
    Role,
    CreatedUtc,
}

#[derive(Iden, Clone, Copy)]
pub enum Credentials {
    Table,
    Id,
    UserId,
    Kind,
    Name,
    SecretHash,
    CreatedUtc,
}

#[derive(Iden, Clone, Copy, PartialEq, Eq, Debug)]
pub enum Posts {
    Table,
    Id,
    PostType,
    Author,
    Status,
    Password,
    Slug,
    Title,
    Description,
    Excerpt,
    DateUtc,
    ModifiedUtc,
    Revision,
    ChangePosition,
    ChangedUtc,
    EverPublic,
    ImageId,
    Guid,
    Address,
    City,
    Country,
    Province,
    State,
    Zip,
    Phone,
    Stateprovince,
    Website,
    Email,
    ShowMap,
    ShowMapLink,
    GeoLat,
    GeoLng,
    StartUtc,
    EndUtc,
    Timezone,
    AllDay,
    Cost,
    HideFromListings,
    Sticky,
    Featured,
    PostParent,
    TrashedStatus,
    VenueId,
    Tickets,
}

/// PostgreSQL: each event's searched text, lower-cased, and what a list checks of
/// the event, named as in `event_keys` (migrations 25, 26 and 28).
#[derive(Iden, Clone, Copy)]
pub enum EventSearch {
    Table,
    Id,
    StartUtc,
    EndUtc,
    Status,
    Protected,
    Hidden,
    Author,
    Terms,
    Haystack,
    ProtectedTitle,
}

#[derive(Iden, Clone, Copy)]
pub enum EventOrganizers {
    Table,
    EventId,
    OrganizerId,
    Position,
}

#[derive(Iden, Clone, Copy, PartialEq, Eq, Debug)]
pub enum Terms {
    Table,
    Id,
    Taxonomy,
    Name,
    Slug,
    Description,
    Parent,
    Count,
    ChangePosition,
    ChangedUtc,
}

/// A term's bit in `event_keys.term_bits` and its next words (migrations 32 and 34).
#[derive(Iden, Clone, Copy)]
pub enum TermBits {
    Table,
    TermId,
    Bit,
}

#[derive(Iden, Clone, Copy)]
pub enum TermAncestors {
    Table,
    TermId,
    AncestorId,
}

#[derive(Iden, Clone, Copy)]
pub enum CategoryRekeys {
    Table,
    TermId,
    AfterEvent,
}

/// Venues and organizers in the trash whose events are still being unlinked
/// (migration 46).
#[derive(Iden, Clone, Copy)]
pub enum LinkedUnlinks {
    Table,
    PostId,
    /// Deleted for good once its last event is unlinked (migration 48).
    ThenDelete,
}

/// The links event writes made to a post of [`LinkedUnlinks`] while it was queued,
/// which its batches pass over (migration 47).
#[derive(Iden, Clone, Copy)]
pub enum LinkedUnlinksKept {
    Table,
    PostId,
    EventId,
}

#[derive(Iden, Clone, Copy)]
pub enum TermRelationships {
    Table,
    PostId,
    TermId,
}

#[derive(Iden, Clone, Copy)]
pub enum EventKeyDays {
    Table,
    Kind,
    Value,
    Status,
    Protected,
    EndDay,
    StartDay,
    Events,
}

#[derive(Iden, Clone, Copy)]
pub enum EventKeyBlocks {
    Table,
    Kind,
    Value,
    Status,
    Protected,
    EndBlock,
    StartBlock,
    Events,
}

#[derive(Iden, Clone, Copy)]
pub enum EventKeys {
    Table,
    Kind,
    Value,
    StartUtc,
    EventId,
    EndUtc,
    Status,
    Protected,
    Hidden,
    Author,
    TermBits,
    #[iden = "term_bits_1"]
    TermBits1,
    #[iden = "term_bits_2"]
    TermBits2,
    #[iden = "term_bits_3"]
    TermBits3,
    FlagBits,
}

#[derive(Iden, Clone, Copy)]
pub enum LinkedEventStats {
    Table,
    Kind,
    Value,
    Counted,
    PublicLast,
    ListedLast,
}

#[derive(Iden, Clone, Copy)]
pub enum AuthFailures {
    Table,
    Key,
    Failures,
    ResetUtc,
}

/// The deleted posts and terms incremental sync reports (migration 10).
#[derive(Iden, Clone, Copy)]
pub enum ChangeTombstones {
    Table,
    Kind,
    Position,
    Id,
    ChangedUtc,
    EverPublic,
    Author,
}

/// How far tombstones have been forgotten (migration 10).
#[derive(Iden, Clone, Copy)]
pub enum ChangeHorizon {
    Table,
    PrunedThrough,
    PrunedBeforeUtc,
}

/// SQLite's counter of change positions (migration 10).
#[derive(Iden, Clone, Copy)]
pub enum ChangeClock {
    Table,
    Position,
}

/// Where imported items came from (migration 11).
#[derive(Iden, Clone, Copy)]
pub enum ImportSources {
    Table,
    Kind,
    Source,
    LocalId,
}
