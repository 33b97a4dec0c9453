import JPEGCodec
import CodecCore
import PNGCodec
import Testing

/// Which DCT scale the decoder picks: the smallest of 1/8, 2/8, 4/8, 8/8 that keeps at least
/// twice the tile.
@Suite struct JPEGScaleTests {
    @Test func typicalTargets() {
        // A 4000×3000 photo in a 290×218 tile needs 580×436: 2/8 gives 1000×750, 1/8 only 500.
        #expect(JPEGDecoder.scaleEighths(width: 4000, height: 3000, minimumWidth: 290, minimumHeight: 218) == 2)
        // 250×187 suffices at 1/8 (500×375); 250×188 does not (375 < 376).
        #expect(JPEGDecoder.scaleEighths(width: 4000, height: 3000, minimumWidth: 250, minimumHeight: 187) == 1)
        #expect(JPEGDecoder.scaleEighths(width: 4000, height: 3000, minimumWidth: 250, minimumHeight: 188) == 2)
        // No minimum: the smallest scale.
        #expect(JPEGDecoder.scaleEighths(width: 4000, height: 3000, minimumWidth: 0, minimumHeight: 0) == 1)
        // Exactly twice at 4/8: 2000 ≥ 2 × 1000.
        #expect(JPEGDecoder.scaleEighths(width: 4000, height: 3000, minimumWidth: 1000, minimumHeight: 10) == 4)
        // One more pixel needs full size (5/8 to 7/8 are never used).
        #expect(JPEGDecoder.scaleEighths(width: 4000, height: 3000, minimumWidth: 1001, minimumHeight: 10) == 8)
        // The height can decide: a tall tile in a wide photo (4/8 gives 500 < 600).
        #expect(JPEGDecoder.scaleEighths(width: 4000, height: 1000, minimumWidth: 10, minimumHeight: 300) == 8)
        #expect(JPEGDecoder.scaleEighths(width: 4000, height: 1000, minimumWidth: 10, minimumHeight: 250) == 4)
        // Upscaling: even full size is smaller than twice the tile.
        #expect(JPEGDecoder.scaleEighths(width: 400, height: 300, minimumWidth: 290, minimumHeight: 218) == 8)
        // libjpeg rounds up: 9 px at 1/8 is 2 px, enough for a 1 px tile.
        #expect(JPEGDecoder.scaleEighths(width: 9, height: 9, minimumWidth: 1, minimumHeight: 1) == 1)
    }

    /// For random sizes: the chosen scale keeps twice the tile (unless it is full size), and
    /// the next smaller power-of-two scale would not. Prints its seed only on failure.
    @Test func chosenScaleIsTheSmallestThatKeepsTwiceTheTile() {
        let seed = SplitMix64.suiteSeed ^ 0x5CA1E
        var rng = SplitMix64(seed: seed)
        func side(_ size: Int, _ eighths: Int) -> Int { (size * eighths + 7) / 8 }
        for iteration in 0..<5000 {
            let width = rng.int(1...20000), height = rng.int(1...20000)
            let tileWidth = rng.int(1...1200), tileHeight = rng.int(1...4800)
            let n = JPEGDecoder.scaleEighths(width: width, height: height, minimumWidth: tileWidth, minimumHeight: tileHeight)
            let fits = { (eighths: Int) in side(width, eighths) >= 2 * tileWidth && side(height, eighths) >= 2 * tileHeight }
            let context: Comment = "seed \(seed) iteration \(iteration): \(width)×\(height) for \(tileWidth)×\(tileHeight) → \(n)/8"
            #expect([1, 2, 4, 8].contains(n), context)
            #expect(fits(n) || n == 8, context)
            #expect(n == 1 || !fits(n / 2), context)
            if n == 8 && !fits(8) { #expect(![1, 2, 4].contains(where: fits), context) }
        }
    }

    /// libjpeg's output size is the stored size times N/8, rounded up, for every N used.
    @Test(arguments: [1, 2, 4, 8])
    func decoderOutputSizeFollowsTheScale(_ eighths: Int) throws {
        let path = fixtureFolder.path("retina-q85-420.jpg")   // 470×1411: odd sizes round
        // Ask for exactly half of the N/8 output: then N is the smallest scale that fits.
        let width = (470 * eighths + 7) / 8, height = (1411 * eighths + 7) / 8
        let decoder = try JPEGDecoder(file: InputFile(path: path), limits: DecodeLimits(),
                                      minimumWidth: width / 2, minimumHeight: height / 2)
        #expect(decoder.scaleEighths == eighths)
        let expectedWidth = (470 * decoder.scaleEighths + 7) / 8, expectedHeight = (1411 * decoder.scaleEighths + 7) / 8
        #expect(decoder.outputWidth == expectedWidth && decoder.outputHeight == expectedHeight)
        var rows = 0
        try decoder.readRows { _, row in
            #expect(row.count == expectedWidth * 3)
            rows += 1
        }
        #expect(rows == expectedHeight)
    }
}
