//! Scenario links in Chromium: the wasm build encodes a fixed document to exactly the
//! link the native build produces (the same pair is pinned in
//! `core/src/scenario/link/tests.rs`), and decodes it back. A link is only worth sharing
//! if the page and the CLI agree on it byte for byte.

use cosim_wasm::link::{decode_link, encode_link};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const GOLDEN_DOC: &str = r#"{"schema_version":1,"title":"golden","modules":[{"name":"m","model":"TwoMassOscillator.Mass1","parameters":{"m1":2.5}}],"connections":[],"master":{"algorithm":"jacobi","macro_step":0.001},"run":{"stop":1}}"#;
const GOLDEN_LINK: &str = "s1.JU9LTsQwDL2L11XVIrHJHRAbdghVJvFMg5K4OA6MVPXu47Q7-_n9vEP1K2Vc_khq5AJuHkCjJgIHd06BCgwQqHqJm54EMCBzaIkquM8dCuZOzhdMyeaPf37DWt-rjymhsox9nY2xoRhdLQzcDnkG9zK-HgNUTtbgxEhXDmYS6IYtKRzH1wCeSyHfC_RQAzJWvQSY7ixR12yaH_T8HXsT9MKLUTZw0zhN9hU9VHBj62MuC0vo8smi6bdR8XT5VkXRpZkMrOnWJ6snrfSo83gadiIbaR6nfqYbyeWh0sjeTKzd73gCRMynBQ";

#[wasm_bindgen_test]
fn wasm_link_equals_the_native_link() {
    let Ok(link) = encode_link(GOLDEN_DOC) else {
        panic!("the document encodes")
    };
    assert_eq!(link, GOLDEN_LINK);
}

#[wasm_bindgen_test]
fn wasm_decodes_the_native_link() {
    let Ok(json) = decode_link(GOLDEN_LINK) else {
        panic!("the link decodes")
    };
    let doc: serde_json::Value = serde_json::from_str(&json).expect("decoded JSON parses");
    assert_eq!(doc["title"], "golden");
    assert_eq!(doc["modules"][0]["parameters"]["m1"], 2.5);
    assert!(decode_link("s1.AAAA").is_err());
}
