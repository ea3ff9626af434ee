/**
 * Pictures for the browser, as escaped SVG: graphs (dagre layout, connector modes), the turn timeline,
 * the waterfall of source invocations and LLM calls, the branch tree of reasoning memory.
 */
export { type BranchInfo, branchTreePicture } from './branch-tree.ts';
export {
  type ConnectorStyle,
  type GraphPictureInput,
  graphPicture,
  type PictureEdge,
  type PictureNode,
} from './graph.ts';
export { PICTURES_CSS } from './style.ts';
export { escapeXml, Svg } from './svg.ts';
export { type TimelineInput, type TimelineMark, turnTimelinePicture } from './timeline.ts';
export { formatMs, nestRows, type WaterfallRow, waterfallPicture } from './waterfall.ts';
