import Testing

/// The sanitizer this test build runs under (`scripts/sanitize.sh` sets the compile condition),
/// for the few tests whose claim cannot hold under it: they carry
/// `.disabled(if: Sanitizer.address, Sanitizer.addressSkipReason)` and Swift Testing prints the
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

    /// Why a memory-limit test is skipped under ASan: it reserves terabytes of shadow address
    /// space at start (so no `ulimit -v` can be met), and its redzones, quarantine and shadow
    /// pages add resident memory that the product does not use.
    public static let addressSkipReason: Comment =
        "AddressSanitizer's shadow memory and quarantine break address-space and resident-memory limits"
}
