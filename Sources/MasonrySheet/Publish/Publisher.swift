/// The files one run writes, each to a temporary file beside its target, replaced together at
/// the end: pages first, in order, then the manifest (SPEC §6: a manifest never lists a page
/// that is not complete). Until `commitAll()`, an interrupted or failed run leaves every earlier
/// file untouched and no temporary file behind (`AtomicOutputFile` and `SignalCleanup`).
final class Publisher {
    private var files: [AtomicOutputFile] = []

    /// A new temporary file for `target`, to be committed with the others.
    func open(_ target: RawPath) throws(SheetError) -> AtomicOutputFile {
        let file = try AtomicOutputFile(target: target)
        files.append(file)
        return file
    }

    /// Flushes every file, then renames each over its target in the order they were opened,
    /// under `OutputLock` (so concurrent runs never mix their outputs).
    func commitAll() throws(SheetError) {
        try AtomicOutputFile.commit(files)
        files.removeAll()
    }

    /// Removes every temporary file not yet committed.
    func discardAll() {
        for file in files { file.discard() }
        files.removeAll()
    }
}
