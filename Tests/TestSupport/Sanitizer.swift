import Testing

/// The sanitizer this test build runs under (`scripts/sanitize.sh` sets the compile condition),
/// for the few tests whose claim cannot hold under it: they carry
/// `.disabled(if: Sanitizer.mapsShadowMemory, Sanitizer.shadowMemorySkipReason)` and Swift Testing prints the
/// reason once, in the test's "skipped" line. Nothing else is skipped.
public enum Sanitizer {
    /// AddressSanitizer (`scripts/sanitize.sh address`).
    public static let address: Bool = {
        #if MASONRY_ASAN
        true
        #else
        false
        #endif
    }()

    /// ThreadSanitizer (`scripts/sanitize.sh thread`).
    public static let thread: Bool = {
        #if MASONRY_TSAN
        true
        #else
        false
        #endif
    }()

    /// ASan or TSan: both map shadow memory for the whole address space at start.
    public static let mapsShadowMemory = address || thread

    /// Why a memory-limit test is skipped under ASan and TSan: they reserve terabytes of shadow
    /// address space at start (so no `ulimit -v` can be met), and their shadow pages (and ASan's
    /// redzones and quarantine) add resident memory that the product does not use.
    public static let shadowMemorySkipReason: Comment =
        "the sanitizer's shadow memory breaks address-space and resident-memory limits"
}
