//! The changes of the latest data versions, bounded in number and in memory:
//! what lets a reader a few versions behind catch up (SQLite's log of commits),
//! and a cache judge an answer computed a few versions ago.

use std::collections::VecDeque;

use super::Changes;

/// The changes each data version brought, newest last: every version's after
/// the one it was made or restarted at, but for those its bounds dropped.
pub struct RecentChanges {
    kept: VecDeque<(u64, Changes)>,
    /// Their [`Changes::heap_bytes`], in all.
    bytes: usize,
    /// Every change after this version is kept.
    since: u64,
    max_versions: usize,
    max_bytes: usize,
}

impl RecentChanges {
    /// Keeps the changes after version `since`: of at most `max_versions` versions
    /// and `max_bytes` of memory, except the newest, which stays however big (a
    /// reader one version behind catches up from it).
    pub fn new(since: u64, max_versions: usize, max_bytes: usize) -> RecentChanges {
        RecentChanges {
            kept: VecDeque::new(),
            bytes: 0,
            since,
            max_versions,
            max_bytes,
        }
    }

    /// Forgets everything: only what comes after `version` will be known.
    pub fn restart(&mut self, version: u64) {
        self.kept.clear();
        self.bytes = 0;
        self.since = version;
    }

    /// Records what `version`, newer than any kept, changed, forgetting the
    /// oldest past the bounds.
    pub fn push(&mut self, version: u64, changes: Changes) {
        self.bytes += changes.heap_bytes();
        self.kept.push_back((version, changes));
        while self.kept.len() > 1
            && (self.kept.len() > self.max_versions || self.bytes > self.max_bytes)
        {
            if let Some((dropped, changes)) = self.kept.pop_front() {
                self.bytes -= changes.heap_bytes();
                self.since = dropped;
            }
        }
    }

    /// The changes of every version after `version`, oldest first, with their
    /// versions; `None` when some of them are no longer kept.
    pub fn after(&self, version: u64) -> Option<impl Iterator<Item = (u64, &Changes)>> {
        (version >= self.since).then(|| {
            self.kept
                .iter()
                .filter(move |(v, _)| *v > version)
                .map(|(v, changes)| (*v, changes))
        })
    }

    /// The memory the kept changes hold, by [`Changes::heap_bytes`].
    pub fn heap_bytes(&self) -> usize {
        self.bytes
    }

    /// How many versions' changes are kept.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::changes::EventState;

    fn kept_after(recent: &RecentChanges, version: u64) -> Vec<&Changes> {
        let kept = recent.after(version).expect("kept");
        kept.map(|(_, changes)| changes).collect()
    }

    fn versions_after(recent: &RecentChanges, version: u64) -> Option<Vec<u64>> {
        recent
            .after(version)
            .map(|all| all.map(|(v, _)| v).collect())
    }

    #[test]
    fn the_changes_after_a_version_are_given_while_all_of_them_are_kept() {
        let mut recent = RecentChanges::new(0, 3, usize::MAX);
        for version in [1, 2, 4, 5] {
            recent.push(version, Changes::events([version as i64], [], []));
        }
        assert_eq!(recent.len(), 3, "the oldest version went");
        assert_eq!(versions_after(&recent, 0), None, "version 1 is forgotten");
        assert_eq!(versions_after(&recent, 1), Some(vec![2, 4, 5]));
        assert_eq!(versions_after(&recent, 3), Some(vec![4, 5]));
        assert_eq!(versions_after(&recent, 5), Some(vec![]));
        recent.restart(9);
        assert!(recent.is_empty());
        assert_eq!(versions_after(&recent, 5), None);
        assert_eq!(versions_after(&recent, 9), Some(vec![]));
    }

    #[test]
    fn the_oldest_changes_go_past_the_memory_bound() {
        const MAX_BYTES: usize = 64 * 1024;
        let mut recent = RecentChanges::new(0, usize::MAX, MAX_BYTES);
        // An event with 200 words of its own (an event carries up to 2 KiB of
        // words): about 1.4 KiB, so about 45 fit in 64 KiB.
        let commit = |id: i64| {
            let text: Vec<String> = (0..200).map(|n| format!("w{id}x{n}")).collect();
            let state = EventState::at((id, id)).with_text(&text.join(" "), "", "");
            Changes::events([id], [], [state])
        };
        assert!(commit(1).heap_bytes() > 1_300, "{}", commit(1).heap_bytes());
        for id in 1..=100 {
            recent.push(id as u64, commit(id));
        }
        assert!(recent.heap_bytes() <= MAX_BYTES, "{}", recent.heap_bytes());
        assert!(recent.len() < 50, "{} kept", recent.len());
        let held: usize = kept_after(&recent, recent.since)
            .iter()
            .map(|c| c.heap_bytes())
            .sum();
        assert_eq!(recent.heap_bytes(), held, "the count of bytes is exact");
        assert_eq!(versions_after(&recent, 0), None, "the oldest are forgotten");
        assert!(kept_after(&recent, 99) == [&commit(100)]);
    }

    #[test]
    fn the_newest_changes_are_kept_however_big() {
        let mut recent = RecentChanges::new(0, 8, 1024);
        recent.push(1, Changes::events([1], [], []));
        let mut state = EventState::at((1, 2));
        state.words = Some("w".repeat(2048));
        let big = Changes {
            states: vec![state],
            ..Changes::nothing()
        };
        recent.push(2, big.clone());
        assert_eq!(recent.len(), 1);
        assert!(kept_after(&recent, 1) == [&big], "the newest is kept");
        assert_eq!(versions_after(&recent, 0), None, "the one before it is not");
    }
}
