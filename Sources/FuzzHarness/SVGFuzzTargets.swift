import CodecCore
import SVGCodec

extension FuzzTarget {
    /// Masonry's SVG readers without librsvg: the prolog and root tag (SVGHeader), then the
    /// whole-document scan (SVGDocumentScan) that bounds elements, references and entities.
    static let svgHeader = FuzzTarget(name: "svg-header") { bytes in
        let all = Array(bytes)
        _ = SVGHeader.hasSignature(Array(all.prefix(SVGHeader.signaturePrefixBytes)))
        guard let header = try? SVGHeader(bytes: all[...]) else { return }
        _ = try? SVGDocumentScan(bytes: all[...], rootOffset: header.rootOffset, entities: header.entities)
    }

    /// The SVG decoder through librsvg at a tile's size and at the intrinsic size, within the
    /// fuzzing limits.
    static let svgDecode = FuzzTarget(name: "svg-decode") { bytes in
        _ = withInputFile(bytes) { file in
            for (width, height) in [(7, 5), (0, 0)] {
                guard let decoder = try? SVGDecoder(file: file, limits: .fuzzing, width: width, height: height) else { continue }
                while try decoder.nextRow() != nil {}
            }
        }
    }
}
