import CodecCore
import PNGCodec

extension FuzzTarget {
    /// The libpng bridge (CPNGBridge) alone: every row of the file, full RGBA or compact rows
    /// (odd-length inputs), chunk CRCs repaired first (see `repairingChunkCRCs`).
    static let pngDecode = FuzzTarget(name: "png-decode") { bytes in
        let repaired = PNGFuzzInput.repairingChunkCRCs(bytes)
        _ = repaired.withUnsafeBytes { file in
            withInputFile(file) { file in
                try PNGFuzzInput.drain(PNGDecoder(file: file, limits: .fuzzing, compactOpaqueRows: bytes.count % 2 == 1,
                                                  route: .libpngOnly))
            }
        }
    }

    /// The fast decode path (CPNGFastDecode) against libpng: when the automatic route takes the
    /// fast path, libpng must give the same rows, row format and header, and no failure or
    /// trailing problem (the fast path has none to report). When the fast path declines, the
    /// automatic route is libpng itself: nothing to compare. Chunk CRCs are repaired first.
    /// One difference is allowed: zlib refusing a deflate stream that libdeflate decoded to
    /// output matching its Adler-32 (see below).
    static let pngDifferential = FuzzTarget(name: "png-differential") { bytes in
        let repaired = PNGFuzzInput.repairingChunkCRCs(bytes)
        let compact = bytes.count % 2 == 1
        repaired.withUnsafeBytes { file in
            guard let fast = withInputFile(file, { file in try PNGDecoder(file: file, limits: .fuzzing, compactOpaqueRows: compact) }),
                  fast.usesFastPath else { return }
            let fastRows = try? PNGFuzzInput.drain(fast)
            precondition(fastRows != nil, "the fast path failed after accepting the file")
            let outcome = withInputFile(file) { file in
                Result { () throws in
                    let decoder = try PNGDecoder(file: file, limits: .fuzzing, compactOpaqueRows: compact, route: .libpngOnly)
                    return (rows: try PNGFuzzInput.drain(decoder), format: decoder.rowFormat, header: decoder.header,
                            problem: decoder.trailingProblem)
                }
            }!
            if case .failure(let error) = outcome {
                // libdeflate remaps some invalid deflate codes (symbols 286 and 287, unused codes of an
                // incomplete Huffman code) where zlib refuses them; its Adler-32 check of the output
                // still passed, so the fast path's rows are the ones the encoder meant. Known and
                // allowed (Notes/fuzzing.md); any other refusal is a finding.
                if case .corruptImageData? = (error as? ImageError)?.pngFailure { return }
                preconditionFailure("the fast path accepted a file libpng refuses: \(error)")
            }
            let reference = try! outcome.get()
            precondition(reference.problem == nil, "the fast path accepted a file libpng warns about: \(reference.problem!)")
            precondition(reference.format == fast.rowFormat, "row formats differ: fast \(fast.rowFormat), libpng \(reference.format)")
            precondition(reference.header == fast.header, "headers differ: fast \(fast.header), libpng \(reference.header)")
            precondition(reference.rows == fastRows!, "pixels differ between the fast path and libpng")
        }
    }
}

/// What the PNG targets share.
enum PNGFuzzInput {
    /// Every row of `decoder`, concatenated; throws what the decoder throws.
    static func drain(_ decoder: some RowSource) throws -> [UInt8] {
        var pixels: [UInt8] = []
        try decoder.readRows { _, row in pixels += row }
        return pixels
    }

    /// `bytes` with the CRC of every whole chunk after the signature recomputed. Without this
    /// almost every mutation inside a chunk fails its CRC check and coverage stops there; the
    /// bridges' handling of a bad CRC is covered by HostileInputTests and PNGCodecTests.
    static func repairingChunkCRCs(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var file = Array(bytes)
        var offset = PNGChunk.signature.count
        while file.count - offset >= 12 {
            let length = file[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard length <= file.count - offset - 12 else { break }
            let crc = PNGChunk.crc(Array(file[(offset + 4)..<(offset + 8 + length)]))
            file.replaceSubrange((offset + 8 + length)..<(offset + 12 + length), with: PNGChunk.bigEndian(crc))
            offset += 12 + length
        }
        return file
    }
}
