import CodecCore
import SVGCodec

extension FuzzTarget {
    /// Masonry's SVG readers without librsvg, from the file as the header pass reads it: the gzip
    /// layer of an SVGZ (SVGFile), the prolog and root tag (SVGHeader), then the whole-document
    /// scan (SVGDocumentScan) that bounds elements, references and entities.
    static let svgHeader = FuzzTarget(name: "svg-header") { bytes in
        _ = SVGHeader.hasSignature(Array(bytes.prefix(SVGHeader.signaturePrefixBytes)))
        _ = withInputFile(bytes) { file in
            let header = try SVGHeader(file: file)
            let document = try SVGFile(file).document()
            precondition(document.count == header.documentBytes, "the document is not the size its header read")
            _ = try SVGDocumentScan(bytes: document[...], rootOffset: header.rootOffset, entities: header.entities)
        }
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
