//! The formats a figure is written in, and writing it to files: PNG through the bitmap backend (encoded here) and SVG, each
//! written atomically; and the SVG of a figure with the places of its run marks.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::bitmap::Bitmap;
use super::drawing::{Drawing, RunSpot, HEIGHT, WIDTH};
use crate::base::choice::choice_enum;
use crate::base::error::{Error, Result};
use crate::io::atomic::write_atomically;

choice_enum! {
    /// Which files to write for each figure.
    pub enum FigureFormat {
        /// PNG only.
        Png = "png",
        /// SVG only.
        Svg = "svg",
        /// PNG and SVG.
        Both = "both",
    }
}

impl FigureFormat {
    pub(super) fn has_png(self) -> bool {
        matches!(self, Self::Png | Self::Both)
    }

    pub(super) fn has_svg(self) -> bool {
        matches!(self, Self::Svg | Self::Both)
    }
}

/// A figure drawn as SVG, with the places of its runs' marks.
#[derive(Debug, Clone)]
pub struct SvgFigure {
    /// The SVG document, as the `.svg` file holds it.
    pub svg: String,
    /// Each run's marks (none for figures without run marks: tau_b, budget).
    pub spots: Vec<RunSpot>,
}

/// Writes `drawing` as `out/<stem>.png` and/or `.svg`, atomically. Returns the files written.
pub(super) fn write_drawing(
    drawing: &impl Drawing,
    stem: &str,
    out: &Path,
    format: FigureFormat,
) -> Result<Vec<PathBuf>> {
    let plot_error = |message: String| Error::Plot {
        figure: stem.to_string(),
        message,
    };
    let mut written = Vec::new();
    if format.has_png() {
        let mut pixels = vec![0u8; WIDTH as usize * HEIGHT as usize * 3];
        {
            let root = Bitmap(BitMapBackend::with_buffer(&mut pixels, (WIDTH, HEIGHT)))
                .into_drawing_area();
            drawing
                .draw(&root, &mut Vec::new())
                .and_then(|()| root.present())
                .map_err(|error| plot_error(error.to_string()))?;
        }
        let png = encode_png(&pixels).map_err(|error| plot_error(error.to_string()))?;
        let path = out.join(format!("{stem}.png"));
        write_atomically(&path, |file| file.write_all(&png))?;
        written.push(path);
    }
    if format.has_svg() {
        let figure = render_svg(drawing, stem)?;
        let path = out.join(format!("{stem}.svg"));
        write_atomically(&path, |file| file.write_all(figure.svg.as_bytes()))?;
        written.push(path);
    }
    Ok(written)
}

/// Draws `drawing` as SVG, collecting the places of its run marks.
pub(super) fn render_svg(drawing: &impl Drawing, stem: &str) -> Result<SvgFigure> {
    let mut svg = String::new();
    let mut spots = Vec::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        drawing
            .draw(&root, &mut spots)
            .and_then(|()| root.present())
            .map_err(|error| Error::Plot {
                figure: stem.to_string(),
                message: error.to_string(),
            })?;
    }
    Ok(SvgFigure { svg, spots })
}

/// Encodes an RGB buffer of `WIDTH` x `HEIGHT` pixels as PNG.
fn encode_png(pixels: &[u8]) -> std::result::Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, WIDTH, HEIGHT);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(pixels)?;
        writer.finish()?;
    }
    Ok(bytes)
}
