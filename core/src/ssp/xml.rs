//! Small helpers over `roxmltree` for the SSP files: element tests by namespace and local
//! name, and the XPath-like path of an element that every refusal names.

use super::{SspError, NS_SSB, NS_SSC, NS_SSD, NS_SSM, NS_SSV};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use roxmltree::Node;

/// The usual prefix of a namespace, for paths a person reads.
fn prefix(ns: Option<&str>) -> &'static str {
    match ns {
        Some(NS_SSD) => "ssd:",
        Some(NS_SSC) => "ssc:",
        Some(NS_SSV) => "ssv:",
        Some(NS_SSM) => "ssm:",
        Some(NS_SSB) => "ssb:",
        _ => "",
    }
}

/// `ssd:Connector` for an element of the SSD namespace, `{ns}Name` for a foreign one.
pub fn qualified(node: Node) -> String {
    let tag = node.tag_name();
    match (tag.namespace(), prefix(tag.namespace())) {
        (Some(ns), "") => format!("{{{ns}}}{}", tag.name()),
        (_, p) => format!("{p}{}", tag.name()),
    }
}

/// The element's path from the document root, e.g.
/// `/ssd:SystemStructureDescription/ssd:System[@name='root']/ssd:Elements`.
pub fn path(node: Node) -> String {
    let mut parts: Vec<String> = node
        .ancestors()
        .filter(|n| n.is_element())
        .map(|n| match n.attribute("name") {
            Some(name) => format!("{}[@name='{name}']", qualified(n)),
            None => qualified(n),
        })
        .collect();
    parts.reverse();
    format!("/{}", parts.join("/"))
}

/// True if `node` is the element `name` of namespace `ns`.
pub fn is(node: Node, ns: &str, name: &str) -> bool {
    node.is_element() && node.tag_name().namespace() == Some(ns) && node.tag_name().name() == name
}

/// The element children of `node`.
pub fn children<'a, 'i>(node: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(|n| n.is_element())
}

/// An error at `node` of `file`.
pub fn error_at(file: &str, node: Node, message: impl Into<String>) -> SspError {
    SspError::new(file, path(node), message)
}

/// The refusal of an element the scenario cannot express, saying why.
pub fn refuse(file: &str, node: Node, why: &str) -> SspError {
    error_at(
        file,
        node,
        format!("`{}` is not supported: {why}", qualified(node)),
    )
}

/// A required attribute.
pub fn required<'a>(file: &str, node: Node<'a, '_>, name: &str) -> Result<&'a str, SspError> {
    node.attribute(name)
        .ok_or_else(|| error_at(file, node, format!("needs the attribute `{name}`")))
}

/// An `xs:double` attribute, if present.
pub fn double(file: &str, node: Node, name: &str) -> Result<Option<f64>, SspError> {
    let Some(text) = node.attribute(name) else {
        return Ok(None);
    };
    let value = match text.trim() {
        "INF" => f64::INFINITY,
        "-INF" => f64::NEG_INFINITY,
        t => t
            .parse::<f64>()
            .map_err(|_| error_at(file, node, format!("`{name}` = `{text}` is not a number")))?,
    };
    Ok(Some(value))
}

/// Parses `text` as XML, naming `file` on failure.
pub fn parse_document<'i>(file: &str, text: &'i str) -> Result<roxmltree::Document<'i>, SspError> {
    roxmltree::Document::parse(text)
        .map_err(|e| SspError::new(file, "", format!("is not well-formed XML: {e}")))
}
