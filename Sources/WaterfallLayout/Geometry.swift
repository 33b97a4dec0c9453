/// Whole-pixel geometry values shared by every layout: rectangles, sizes and insets.
///
/// All layout arithmetic is integer arithmetic (SPEC §1), so these are `Int`-based.

/// An axis-aligned rectangle in sheet pixels; `y` grows downwards.
///
/// The rectangle covers the half-open ranges `x ..< maxX` and `y ..< maxY`, so a rectangle
/// with a zero or negative side covers no pixel and intersects nothing.
public struct LayoutRect: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// `x + width`, saturated at the bounds of `Int` so a hostile rectangle cannot trap.
    public var maxX: Int { saturatingSum(x, width) }

    /// `y + height`, saturated at the bounds of `Int` so a hostile rectangle cannot trap.
    public var maxY: Int { saturatingSum(y, height) }

    /// Whether the two rectangles share at least one pixel.
    public func intersects(_ other: LayoutRect) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
            && width > 0 && height > 0 && other.width > 0 && other.height > 0
    }

    /// Whether `other` lies entirely inside this rectangle (an empty `other` never does).
    public func contains(_ other: LayoutRect) -> Bool {
        other.width > 0 && other.height > 0
            && other.x >= x && other.maxX <= maxX && other.y >= y && other.maxY <= maxY
    }
}

/// Encoded with the keys in the manifest's order: `x`, `y`, `width`, `height` (the
/// synthesized conformance follows the declaration order).
extension LayoutRect: Codable {}

/// The pixel size of a source image. Layouts expect both sides to be at least 1
/// (see `MasonryLayout.append(_:)` and `tryAppend(_:)` for what happens otherwise).
public struct LayoutSize: Sendable, Hashable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// Space around a block of the sheet, in CSS order (top, right, bottom, left).
public struct LayoutInsets: Sendable, Hashable {
    public var top: Int
    public var right: Int
    public var bottom: Int
    public var left: Int

    public init(top: Int, right: Int, bottom: Int, left: Int) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
    }

    /// The same inset on all four sides.
    public init(all inset: Int) {
        self.init(top: inset, right: inset, bottom: inset, left: inset)
    }

    /// No inset at all.
    public static let zero = LayoutInsets(all: 0)
}

/// Encoded with the keys in the manifest's (CSS) order: `top`, `right`, `bottom`, `left`.
extension LayoutInsets: Codable {}

/// `a + b`, clamped to `Int.min ... Int.max` instead of trapping.
@inline(__always)
func saturatingSum(_ a: Int, _ b: Int) -> Int {
    let (sum, overflow) = a.addingReportingOverflow(b)
    if overflow { return b > 0 ? .max : .min }
    return sum
}
