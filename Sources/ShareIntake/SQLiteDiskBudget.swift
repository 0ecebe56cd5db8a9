/// How `intake.maxDatabaseBytes` is split between the SQLite database file and its WAL, so
/// that the two together stay within the limit.
///
/// `max_page_count` bounds the main file only; in WAL mode every commit appends its pages to
/// the `-wal` file, which SQLite by default lets grow to 1000 pages (4 MiB) before a
/// checkpoint and never shrinks. A quarter of the limit goes to the WAL: a checkpoint runs
/// once it holds half of that (`wal_autocheckpoint`), and the file is truncated back to the
/// quarter when it restarts (`journal_size_limit`); the main file gets the other three
/// quarters. Beyond this only one transaction larger than the WAL's quarter (a batch of
/// hundreds of items under a tiny limit) or a reader holding an old snapshot during a
/// checkpoint can push the WAL past it, until the next checkpoint. The `-shm` index
/// (32 KiB per 4,096 WAL pages) comes on top.
struct SQLiteDiskBudget: Equatable {
    /// `max_page_count`: pages the main file may hold.
    var mainPages: Int64
    /// `journal_size_limit`: bytes the WAL file is truncated to after a checkpoint.
    var walBytes: Int64
    /// `wal_autocheckpoint`: WAL pages after which a commit checkpoints.
    var checkpointPages: Int64

    init(maxDatabaseBytes: Int, pageSize: Int64) {
        let page = max(512, pageSize)
        let total = max(Int64(maxDatabaseBytes), 4 * page)
        let walPages = max(2, total / 4 / page)
        walBytes = walPages * page
        mainPages = max(1, (total - walBytes) / page)
        checkpointPages = max(1, walPages / 2)
    }

    /// The pragmas that apply the budget on a connection (each is per connection).
    var pragmas: [String] {
        [
            "PRAGMA max_page_count=\(mainPages)", "PRAGMA journal_size_limit=\(walBytes)",
            "PRAGMA wal_autocheckpoint=\(checkpointPages)",
        ]
    }
}
