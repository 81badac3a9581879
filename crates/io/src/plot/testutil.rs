//! What the plots' tests share: a PNG decoder and pixel tests.

use std::path::Path;

/// A decoded PNG.
pub(super) struct Png {
    pub(super) width: usize,
    pub(super) height: usize,
    pub(super) rgb: Vec<u8>,
}

impl Png {
    pub(super) fn read(path: &Path) -> Png {
        let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
        let mut reader = png::Decoder::new(file).read_info().unwrap();
        let mut rgb = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut rgb).unwrap();
        assert_eq!(
            (info.color_type, info.bit_depth),
            (png::ColorType::Rgb, png::BitDepth::Eight)
        );
        rgb.truncate(info.buffer_size());
        Png {
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }

    pub(super) fn pixel(&self, (x, y): (usize, usize)) -> [u8; 3] {
        let k = 3 * (y * self.width + x);
        [self.rgb[k], self.rgb[k + 1], self.rgb[k + 2]]
    }

    /// The pixels for which `f` holds, as (column, row).
    pub(super) fn find(&self, f: impl Fn([u8; 3]) -> bool) -> Vec<(usize, usize)> {
        (0..self.height)
            .flat_map(|y| (0..self.width).map(move |x| (x, y)))
            .filter(|&p| f(self.pixel(p)))
            .collect()
    }
}

pub(super) fn near(a: [u8; 3], b: [u8; 3], tolerance: u8) -> bool {
    (0..3).all(|c| a[c].abs_diff(b[c]) <= tolerance)
}

pub(super) fn blue(p: [u8; 3]) -> bool {
    p[2] > 200 && p[0] < 60 && p[1] < 60
}

pub(super) fn red(p: [u8; 3]) -> bool {
    p[0] > 200 && p[1] < 60 && p[2] < 60
}

pub(super) fn dark(p: [u8; 3]) -> bool {
    p.iter().all(|&c| c < 80)
}
