/** The dashboard's stylesheet, inlined in the page (the CSP allows inline styles only). */
export const DASHBOARD_STYLE = `
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f6f6f4; }
  header { padding: 10px 16px; background: #1d1d1f; color: #fff; display: flex; gap: 12px; align-items: center; }
  header h1 { font-size: 16px; margin: 0; }
  main { display: grid; grid-template-columns: 320px 1fr; min-height: calc(100vh - 44px); }
  #runs { border-right: 1px solid #ddd; overflow: auto; background: #fff; }
  .run { padding: 8px 12px; border-bottom: 1px solid #eee; cursor: pointer; }
  .run:hover, .run.selected { background: #eef3ff; }
  .goal { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .error { color: #a00; }
  #status-filter { margin: 8px 12px; }
  .status { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; background: #e8e8e8; }
  .status.done { background: #d7f5dc; } .status.failed, .status.cancelled { background: #fbdada; }
  .status.waiting_approval, .status.escalated { background: #fff1c2; }
  #detail { padding: 16px; overflow: auto; }
  #timeline { font: 12px/1.5 ui-monospace, monospace; background: #fff; border: 1px solid #ddd; padding: 8px; white-space: pre-wrap; }
  .approval { background: #fff8dd; border: 1px solid #e8d98b; padding: 8px; margin: 8px 0; }
  button { margin-right: 6px; }
  .muted { color: #777; }
  #live { font: 12px/1.5 ui-monospace, monospace; white-space: pre-wrap; margin-top: 8px; }
`;
