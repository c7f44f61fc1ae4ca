// The long-lived fleet host page (Chrome's offscreen document, Firefox's background page): the
// fleet client lives here, so WebRTC connections outlast the pages that use them. A top-level
// extension document: the page's mixed-content rule does not reach it (frameUnderMixedContentRule
// is false here in both browsers).
import { createFleetHost, listenForFrames } from './fleet-host.js';
import { frameUnderMixedContentRule } from '../shared/mixed-content.js';

listenForFrames(window, createFleetHost({ underMixedContentRule: frameUnderMixedContentRule(window) }));
