import GalleryPage
import PNGCodec
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// How Masonry tells the files it wrote from a user's files, so a run replaces its own earlier
/// outputs (re-running into the same folder works) and never a user's picture or page (SPEC §5).
///
/// Every file Masonry writes carries a fixed mark, the same bytes in every run:
/// - a PNG sheet, page or review page: a private ancillary chunk `mnRY` holding `masonry`,
///   just before `IEND` (not safe to copy, so an editor that changes the picture drops it);
/// - a manifest or compare report: the key `"generator": "masonry"` after `"version"`;
/// - an HTML page: `<meta name="generator" content="masonry">` in its head;
/// - a JUnit file: `<!-- generator: masonry -->` after the XML declaration;
/// - a Markdown summary: `<!-- generator: masonry -->` as its last line (hidden when rendered).
///
/// A file is Masonry's when its last bytes are the PNG mark and `IEND`, or when its first or
/// last KiB holds one of the text marks.
public enum OwnOutput {
    /// The chunk type: ancillary (m), private (n), reserved bit clear (R), not safe to copy (Y).
    static let chunkType = "mnRY"
    /// The chunk and IEND, the last bytes of every PNG Masonry writes.
    static let pngTail: [UInt8] = PNGChunk.bytes(type: chunkType, data: Array("masonry".utf8))
        + PNGChunk.bytes(type: "IEND", data: [])
    /// The JSON key/value that marks a manifest or report.
    static let jsonMark = "\"generator\": \"masonry\""
    /// The comment that marks a JUnit or Markdown file.
    static let commentMark = "<!-- generator: masonry -->"
    static let textMarks: [[UInt8]] = [jsonMark, commentMark, HTMLPage.generatorMark].map { Array($0.utf8) }

    /// Puts the mark into a finished PNG (its last 12 bytes are `IEND`): the mark chunk is
    /// written over `IEND` and `IEND` after it, so every page and review page carries it.
    static func markPNG(_ file: AtomicOutputFile) throws(SheetError) {
        var status = stat()
        guard fstat(file.descriptor, &status) == 0, status.st_size >= 12 else {
            throw SheetError("cannot write \(file.target.displayName): \(String(cString: strerror(errno)))")
        }
        let tail = pngTail
        var offset = 0
        while offset < tail.count {
            let wrote = tail.withUnsafeBytes {
                pwrite(file.descriptor, $0.baseAddress! + offset, $0.count - offset, off_t(Int(status.st_size) - 12 + offset))
            }
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else {
                throw SheetError("cannot write \(file.target.displayName): \(String(cString: strerror(errno)))")
            }
            offset += wrote
        }
    }

    /// Whether the regular file at `path` (links followed) carries one of Masonry's marks (a
    /// file that cannot be read is not known to be Masonry's). Running out of descriptors or
    /// memory stops the run: it says nothing about the file.
    public static func isOwn(_ path: RawPath) throws(SheetError) -> Bool {
        let descriptor = path.open(O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if descriptor < 0, let fault = RunFault.describe(errno) { throw SheetError("cannot read \(path.displayName): \(fault)") }
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        let size = Int(status.st_size)
        let window = 1024
        let head = read(descriptor, at: 0, count: min(size, window))
        let tail = size > window ? read(descriptor, at: size - window, count: window) : head
        if tail.count >= pngTail.count && tail.suffix(pngTail.count).elementsEqual(pngTail) { return true }
        return textMarks.contains { mark in contains(head, mark) || contains(tail, mark) }
    }

    /// The output that is about to replace a file Masonry did not write, as a usage error:
    /// `<what> <path> would replace a file Masonry did not write; …`. Nothing is refused with
    /// `overwrite` (`--overwrite`), or when the path is missing or its file is Masonry's.
    /// `what` names the option the path came from (`-o`, `--manifest`, `page 2`).
    public static func refuseForeign(_ outputs: [(what: String, path: RawPath)], overwrite: Bool) throws(SheetError) {
        guard !overwrite else { return }
        for (what, path) in outputs {
            guard let status = path.status(), status.st_mode & S_IFMT == S_IFREG, try !isOwn(path) else { continue }
            let another = what.hasPrefix("page") ? "another -o name" : "another name"
            throw SheetError(.usage, "\(what) \(path.displayName) would replace a file Masonry did not write; "
                             + "choose \(another), or add --overwrite to replace it")
        }
    }

    /// Refuses, as a usage error, an output whose folder is missing or not a folder, or that
    /// is itself a folder: checked before any input is read, the same in a render and a compare.
    public static func requireFolders(_ outputs: [(what: String, path: RawPath)]) throws(SheetError) {
        for (_, path) in outputs {
            let folder = path.parent
            guard let status = folder.status() else {
                throw SheetError(.usage, "cannot write \(path.displayName): folder \(folder.displayName) does not exist")
            }
            guard status.st_mode & S_IFMT == S_IFDIR else {
                throw SheetError(.usage, "cannot write \(path.displayName): \(folder.displayName) is not a folder")
            }
            if let own = path.status(), own.st_mode & S_IFMT == S_IFDIR {
                throw SheetError(.usage, "cannot write \(path.displayName): it is a folder")
            }
        }
    }

    /// Refuses, as a usage error, an output whose folder is `folders` or below one of them
    /// (links resolved), naming the output and the folder.
    static func refuseInside(_ outputs: [(what: String, path: RawPath)], folders: [(name: String, path: RawPath)]) throws(SheetError) {
        let roots = folders.compactMap { name, path in resolved(path).map { (name, path, $0) } }
        for (what, path) in outputs {
            guard let folder = resolved(path.parent) else { continue }
            for (name, given, root) in roots
            where folder == root || (folder.starts(with: root) && (root == [0x2F] || folder[root.count] == 0x2F)) {
                throw SheetError(.usage, "\(what) \(path.displayName) is inside the \(name) folder \(given.displayName), "
                                 + "which compare never writes to; write it outside both folders")
            }
        }
    }

    /// The path with every link and `.`/`..` resolved (`realpath`), or nil when it does not exist.
    private static func resolved(_ path: RawPath) -> [UInt8]? {
        guard let pointer = path.withCString({ realpath($0, nil) }) else { return nil }
        defer { free(pointer) }
        return UnsafeBufferPointer(start: pointer, count: strlen(pointer)).map { UInt8(bitPattern: $0) }
    }

    private static func read(_ descriptor: Int32, at offset: Int, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + got, count - got, off_t(offset + got)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        return Array(bytes.prefix(got))
    }

    private static func contains(_ bytes: [UInt8], _ mark: [UInt8]) -> Bool {
        guard bytes.count >= mark.count else { return false }
        return (0...(bytes.count - mark.count)).contains { start in bytes[start..<(start + mark.count)].elementsEqual(mark) }
    }
}
