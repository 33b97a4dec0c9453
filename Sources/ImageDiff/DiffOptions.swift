/// How two pixels are judged: pixelmatch's options.
public struct DiffOptions: Sendable, Hashable {
    /// Matching threshold in 0...1; smaller is more sensitive. Pixels differ when their squared
    /// YIQ distance exceeds `35215 · threshold²`.
    public var threshold: Double
    /// Count anti-aliased pixels as differing too (they are still counted in `aaPixels`).
    public var includeAA: Bool
    /// Convert both pictures to sRGB through their colour information before comparing them
    /// (`--color-management`); off by default, as pixelmatch compares stored samples.
    public var colorManagement = false

    public init(threshold: Double = 0.1, includeAA: Bool = false) {
        self.threshold = threshold
        self.includeAA = includeAA
    }
}

/// The class of one pixel of a difference, one byte per pixel in the rows a diff emits.
public enum PixelClass {
    /// Equal, or within the threshold.
    public static let same: UInt8 = 0
    /// Beyond the threshold and not anti-aliasing: counted in `diffPixels`.
    public static let differing: UInt8 = 1
    /// Beyond the threshold but anti-aliasing in either image: counted in `aaPixels` (and in
    /// `diffPixels` with `includeAA`).
    public static let antialiased: UInt8 = 2
    /// In an ignored region (`IgnoreMask`): neither compared nor counted.
    public static let ignored: UInt8 = 3
}

/// A pixel rectangle.
public struct PixelRect: Sendable, Hashable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// The smallest rectangle holding both (`nil` is the empty rectangle).
    static func union(_ a: PixelRect?, _ b: PixelRect?) -> PixelRect? {
        guard let a else { return b }
        guard let b else { return a }
        let x0 = min(a.x, b.x), y0 = min(a.y, b.y)
        let x1 = max(a.x + a.width, b.x + b.width), y1 = max(a.y + a.height, b.y + b.height)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
