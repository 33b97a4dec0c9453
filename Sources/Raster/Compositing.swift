import CRasterKernels

/// Composites a premultiplied RGBA8 row "over" `background` into a row of the sheet.
///
/// - `channels == 3`: RGB out; the background must be opaque. Each channel is
///   `source + background * (255 - sourceAlpha) / 255`, rounded to nearest once, so 50 %
///   red `(128, 0, 0, 128)` over white gives `(255, 127, 127)` (alpha 128 leaves 127/255 of
///   the white) and `(127, 0, 0, 127)` gives `(255, 128, 128)`.
/// - `channels == 4`: straight RGBA out (the PNG convention). Alpha is
///   `sourceAlpha + backgroundAlpha * (255 - sourceAlpha) / 255`, and colour is the exact
///   premultiplied result divided by that exact alpha, each rounded to nearest once.
///   An opaque source pixel is copied; a transparent one gives the background's bytes
///   (exactly what `fillRow` writes).
///
/// Integer arithmetic only: the same bytes on every machine. `source` holds
/// `destination.count / channels` pixels.
public func compositeOver(background: RGBA8Color, source: UnsafeBufferPointer<UInt8>,
                          into destination: UnsafeMutableBufferPointer<UInt8>, channels: Int) {
    compositeOver(background: background, source: source, into: destination, channels: channels, kernels: .best)
}

/// `compositeOver` with the RGB loop's code chosen (tests compare the two).
func compositeOver(background: RGBA8Color, source: UnsafeBufferPointer<UInt8>,
                   into destination: UnsafeMutableBufferPointer<UInt8>, channels: Int, kernels: RasterKernels) {
    precondition(channels == 4 || (channels == 3 && background.isOpaque),
                 "channels must be 4, or 3 over an opaque background")
    let pixelCount = destination.count / channels
    precondition(destination.count == pixelCount * channels && source.count == pixelCount * 4,
                 "source and destination rows must hold the same number of pixels")
    let backgroundColour = SIMD3<Int>(Int(background.r), Int(background.g), Int(background.b))
    let backgroundAlpha = Int(background.a)
    let sourceBytes = UnsafeRawPointer(source.baseAddress!), destinationBytes = UnsafeMutableRawPointer(destination.baseAddress!)
    var pixel = 0
    if channels == 3 {
        if kernels == .avx2 {
            pixel = mrk_composite_rgb_avx2(source.baseAddress!, destination.baseAddress!, pixelCount,
                                           background.r, background.g, background.b)
        }
        pixel += compositeRGBFourAtATime(backgroundColour: backgroundColour, source: sourceBytes + 4 * pixel,
                                         destination: destinationBytes + 3 * pixel, pixelCount: pixelCount - pixel)
    }
    while pixel < pixelCount {
        defer { pixel &+= 1 }
        let input = pixel * 4, output = pixel * channels
        let alpha = Int(source[input + 3])
        if alpha == 255 {
            for channel in 0..<channels { destination[output + channel] = source[input + channel] }
        } else if alpha == 0 {
            for channel in 0..<3 { destination[output + channel] = UInt8(backgroundColour[channel]) }
            if channels == 4 { destination[output + 3] = background.a }
        } else if channels == 3 {
            for channel in 0..<3 {
                let total = Int(source[input + channel]) * 255 + backgroundColour[channel] * (255 - alpha)
                destination[output + channel] = UInt8(min((total + 127) / 255, 255))
            }
        } else {
            // Alpha in units of 1/255^2; premultiplied colour in units of 1/255^3.
            let outAlpha = alpha * 255 + backgroundAlpha * (255 - alpha)
            for channel in 0..<3 {
                let colour = Int(source[input + channel]) * 255 * 255
                    + backgroundColour[channel] * backgroundAlpha * (255 - alpha)
                destination[output + channel] = UInt8(min((colour + outAlpha / 2) / outAlpha, 255))
            }
            destination[output + 3] = UInt8((outAlpha + 127) / 255)
        }
    }
}

/// The RGB rule of `compositeOver`, four pixels a step, for as long as 6 pixels remain: each
/// step loads 16 bytes and stores 16 bytes whose last 4 the next step overwrites, so it never
/// writes past the row. Returns the first pixel it did not do.
///
/// Opaque and fully transparent steps (the usual ones) are a shuffle or a store; any other
/// step computes `(source * 255 + background * (255 - alpha) + 127) / 255` in 32-bit lanes,
/// dividing by 255 as `(x * 32897) >> 23`, which is exact for every x below 66,052
/// (32897 * 255 = 2^23 + 127, so the error stays under 1/255); x is at most 255 * 255 + 127
/// because premultiplied colour never exceeds alpha. Every pixel gets the per-pixel rule's
/// exact bytes.
@inline(__always)
private func compositeRGBFourAtATime(backgroundColour: SIMD3<Int>, source: UnsafeRawPointer,
                                     destination: UnsafeMutableRawPointer, pixelCount: Int) -> Int {
    let (r, g, b) = (UInt32(backgroundColour.x), UInt32(backgroundColour.y), UInt32(backgroundColour.z))
    let backgroundLanes = SIMD16<UInt32>(r, g, b, 0, r, g, b, 0, r, g, b, 0, r, g, b, 0)
    let backgroundBytes = SIMD16<UInt8>(truncatingIfNeeded: backgroundLanes)
    @inline(__always) func dropAlpha(_ four: SIMD16<UInt8>) -> SIMD16<UInt8> {
        SIMD16(four[0], four[1], four[2], four[4], four[5], four[6], four[8], four[9],
               four[10], four[12], four[13], four[14], 0, 0, 0, 0)
    }
    let alphaMask = SIMD4<UInt32>(repeating: 0xFF00_0000)
    var pixel = 0
    while pixel &+ 6 <= pixelCount {
        let four = source.loadUnaligned(fromByteOffset: 4 &* pixel, as: SIMD16<UInt8>.self)
        let words = unsafeBitCast(four, to: SIMD4<UInt32>.self)
        let alphas = words & alphaMask
        let colours: SIMD16<UInt8>
        if alphas == alphaMask {
            colours = four
        } else if alphas == .zero {
            colours = backgroundBytes
        } else {
            let alphaBytes = unsafeBitCast((words &>> 24) &* 0x0101_0101, to: SIMD16<UInt8>.self)
            let remaining = SIMD16<UInt32>(repeating: 255) &- SIMD16<UInt32>(truncatingIfNeeded: alphaBytes)
            let total = SIMD16<UInt32>(truncatingIfNeeded: four) &* 255 &+ backgroundLanes &* remaining &+ 127
            colours = SIMD16<UInt8>(truncatingIfNeeded: (total &* 32897) &>> 23)
        }
        destination.storeBytes(of: dropAlpha(colours), toByteOffset: 3 &* pixel, as: SIMD16<UInt8>.self)
        pixel &+= 4
    }
    return pixel
}

/// Fills a sheet row with `background`: RGB when `channels == 3` (background opaque),
/// otherwise straight RGBA.
public func fillRow(_ destination: UnsafeMutableBufferPointer<UInt8>, with background: RGBA8Color, channels: Int) {
    precondition(channels == 4 || (channels == 3 && background.isOpaque),
                 "channels must be 4, or 3 with an opaque background")
    precondition(destination.count % channels == 0, "the row must hold whole pixels")
    let bytes = SIMD4<UInt8>(background.r, background.g, background.b, background.a)
    for pixelStart in stride(from: 0, to: destination.count, by: channels) {
        for channel in 0..<channels { destination[pixelStart + channel] = bytes[channel] }
    }
}
