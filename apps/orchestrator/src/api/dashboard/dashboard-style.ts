/** The dashboard's stylesheet, inlined in the page (the CSP allows inline styles only). */
export const DASHBOARD_STYLE = `
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f6f6f4; }
  header { padding: 10px 16px; background: #1d1d1f; color: #fff; display: flex; gap: 12px; align-items: center; }
  header h1 { font-size: 16px; margin: 0; }
  main { display: grid; grid-template-columns: minmax(360px, 34%) 1fr; min-height: calc(100vh - 44px); }
  header nav a { color: #cfe0ff; margin-right: 10px; text-decoration: none; }
  header nav a.active { color: #fff; text-decoration: underline; }
  #problem { padding: 8px 16px; background: #fde8e8; border-bottom: 1px solid #f3b4b4; }
  .filters { padding: 8px 12px; border-bottom: 1px solid #eee; }
  .filters select, .filters input { margin: 0 4px 4px 0; }
  .chips { margin-top: 4px; }
  .chip { border: 0; cursor: pointer; margin: 2px 4px 2px 0; }
  .chip.active { outline: 2px solid #4a6fd8; }
  .run-head { display: flex; gap: 6px; align-items: baseline; min-width: 0; }
  .run-head .goal { flex: 1; min-width: 0; }
  .run-facts .waiting { color: #8a6100; }
  .pager { padding: 8px 12px; }
  .approval pre, .evidence pre { background: #fff; border: 1px solid #eee; padding: 6px; max-height: 240px; overflow: auto; white-space: pre-wrap; }
  .approval-rule { margin: 4px 0; }
  .evidence-call summary { cursor: pointer; font: 12px/1.5 ui-monospace, monospace; }
  .escalation-card { border-bottom: 1px solid #eee; padding: 8px 0; }
  table.grid { border-collapse: collapse; background: #fff; margin-bottom: 12px; }
  table.grid th, table.grid td { border: 1px solid #ddd; padding: 4px 10px; text-align: left; }
  #runs { border-right: 1px solid #ddd; overflow: auto; background: #fff; }
  .run { padding: 8px 12px; border-bottom: 1px solid #eee; cursor: pointer; }
  .run:hover, .run.selected { background: #eef3ff; }
  .goal { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .error { color: #a00; }
  .status { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; background: #e8e8e8; }
  .status.done { background: #d7f5dc; } .status.failed, .status.cancelled { background: #fbdada; }
  .status.waiting_approval, .status.escalated { background: #fff1c2; }
  #detail { padding: 16px; overflow: auto; }
  #timeline { font: 12px/1.5 ui-monospace, monospace; }
  .panel { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; margin: 10px 0; }
  .panel h3 { font-size: 14px; margin: 0 0 6px; }
  .panels { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; } .panels .panel { margin: 0; }
  .revisions { margin: 4px 0; padding-left: 20px; color: #555; } .revision.replan, .revision.answer_rejected { color: #8a5a00; }
  .risks { margin: 4px 0; padding-left: 20px; color: #8a5a00; }
  .graph-row { display: flex; align-items: flex-start; gap: 8px; overflow-x: auto; }
  .edge { align-self: center; font-size: 18px; color: #777; }
  .step-box { border: 1px solid #9ab; border-radius: 6px; padding: 6px 8px; background: #f7fbff; min-width: 200px; }
  .step-box .step-box { margin-top: 6px; background: #fff; border-style: dashed; }
  .group-box { border: 1px dashed #9ab; border-radius: 6px; padding: 4px 6px; } .group-box.failed { border-color: #c33; }
  .group-lanes { display: flex; flex-direction: column; gap: 6px; } .step-box.cancelled { opacity: 0.55; }
  .wf-row { display: grid; grid-template-columns: 16em 1fr 4.5em; gap: 6px; align-items: center; font-size: 12px; }
  .wf-label { white-space: pre; overflow: hidden; text-overflow: ellipsis; } .wf-label.step { font-weight: 600; }
  .wf-track { position: relative; height: 12px; background: #f3f5f7; }
  .wf-bar { position: absolute; top: 1px; height: 10px; border-radius: 2px; background: #7a9cc6; }
  .wf-bar.model { background: #b58ad6; } .wf-bar.tool { background: #e0a04a; } .wf-bar.failed { background: #c33; }
  .step-title { font-weight: 600; }
  .attempt { border-top: 1px solid #e4e8ee; padding: 4px 0; font-size: 12px; } .attempt.failed { color: #a00; }
  .chip { display: inline-block; margin: 2px 4px 0 0; padding: 0 6px; border-radius: 8px; background: #e8eef6; color: inherit; text-decoration: none; font-size: 11px; }
  .chip.failed, .evidence.failed { background: #fbdada; }
  .budget { margin: 4px 0; font-size: 12px; } .bar { height: 8px; background: #eee; border-radius: 4px; overflow: hidden; }
  .fill { height: 100%; background: #4a8; } .fill.near { background: #d9a300; } .fill.over { background: #c33; }
  .usage-table { border-collapse: collapse; font-size: 12px; margin-top: 6px; } .usage-table td, .usage-table th { padding: 1px 8px 1px 0; text-align: left; }
  .claim-status { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; background: #e8e8e8; }
  .claim.supported .claim-status { background: #d7f5dc; } .claim.unsupported .claim-status, .claim.contradicted .claim-status { background: #fbdada; }
  .evidence { margin-right: 4px; font-size: 12px; } .gap { color: #8a5a00; }
  .verdict .check.failed { color: #a00; } .verdict.retry, .verdict.replan, .verdict.escalate, .verdict.fail { color: #8a3a00; }
  .entry { padding: 1px 0; } .entry.failed, .call.failed > summary { color: #a00; }
  details.call > summary { cursor: pointer; padding: 1px 0; }
  details.call { border-left: 3px solid #cde; padding-left: 6px; margin: 2px 0; } details.call.failed { border-left-color: #e99; }
  details.call dl { display: grid; grid-template-columns: 90px 1fr; margin: 4px 0; } details.call dt { color: #777; } details.call dd { margin: 0; }
  details.call h4 { margin: 6px 0 2px; font-size: 12px; color: #555; }
  pre.body { background: #fafafa; border: 1px solid #eee; padding: 6px; max-height: 320px; overflow: auto; white-space: pre-wrap; margin: 0; }
  .approval { background: #fff8dd; border: 1px solid #e8d98b; padding: 8px; margin: 8px 0; }
  button { margin-right: 6px; }
  .muted { color: #777; }
  #live { font: 12px/1.5 ui-monospace, monospace; white-space: pre-wrap; margin-top: 8px; }
  #live .live-thinking { font-style: italic; opacity: 0.7; }
  #live .live-thinking:empty { display: none; }
`;
