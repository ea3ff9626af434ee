/** The pictures' stylesheet (the HTML layout includes it once per page). Colours name states, not kinds of data. */
export const PICTURES_CSS = `
svg.picture { max-width: 100%; height: auto; font: 12px system-ui, sans-serif; }
svg.picture text { fill: #1f2933; }
svg.picture a:hover rect, svg.picture a:hover circle { stroke-width: 2.5; }
.graph .node rect { fill: #f5f7fa; stroke: #7b8794; stroke-width: 1.2; }
.graph .node.current rect { fill: #fff3c4; stroke: #f0b429; stroke-width: 3; }
.graph .node.status-failed rect { fill: #ffe3e3; stroke: #d64545; }
.graph .node.status-ok rect, .graph .node.status-completed rect { stroke: #3ebd93; }
.graph .node.status-running rect, .graph .node.status-waiting rect { stroke: #2186eb; }
.graph .node-kind { fill: #616e7c; font-size: 10px; }
.graph .edge path { stroke: #52606d; stroke-width: 1.5; }
.graph .edge-label { font-size: 10px; fill: #52606d; }
.graph .arrowhead { fill: #52606d; }
.graph .edge.taken path { stroke: #2186eb; stroke-width: 3; }
.graph .edge.taken .edge-label { fill: #0b69a3; font-weight: 600; }
.waterfall .tick { stroke: #e4e7eb; }
.waterfall .tick-label { fill: #7b8794; font-size: 10px; }
.waterfall .bar rect { fill: #9aa5b1; }
.waterfall .kind-llm_generation rect { fill: #2186eb; }
.waterfall .kind-ambient_context rect { fill: #3ebd93; }
.waterfall .kind-model_elected_tool rect, .waterfall .kind-agent_tool_call rect { fill: #9446ed; }
.waterfall .kind-flow_node rect { fill: #f0b429; }
.waterfall .status-failed rect { fill: #d64545; }
.waterfall .status-interrupted rect { fill: #e66a6a; stroke: #d64545; stroke-dasharray: 3 2; }
.waterfall .running rect { opacity: 0.6; }
.timeline .lane { stroke: #e4e7eb; }
.timeline .turn-label { fill: #7b8794; font-size: 10px; }
.timeline .mark circle { fill: #3ebd93; stroke: #fff; stroke-width: 1; }
.timeline .mark.status-failed circle { fill: #d64545; }
.branches .branch-line { stroke: #2186eb; stroke-width: 3; }
.branches .fork { stroke: #9aa5b1; stroke-dasharray: 3 3; fill: none; }
.branches .base { fill: #fff; stroke: #2186eb; stroke-width: 2; }
.branches .head { fill: #2186eb; }
`;
