-- :CompactdContext — the conversation's context window as a float of text bars: the window as
-- one bar by category (outside the transcript, tool results, …), every turn's tokens with what
-- the dry run would remove, the costs. The data is the server's compactd/context answer;
-- render() is pure (lines and highlights) so it is tested headless.
local M = {}

-- One glyph and one highlight group per category, so the bar reads without colours too.
M.glyphs = {
  outside = '█', system = '▇', injected = '▆', summaries = '▅', user = '▓', assistant = '▒',
  reasoning = '▚', ['tool-calls'] = '▞', ['tool-results'] = '■', media = '▪',
}
local groups = {
  outside = 'CompactdContextOutside', system = 'CompactdContextSystem', injected = 'CompactdContextInjected',
  summaries = 'CompactdContextSummaries', user = 'CompactdContextUser', assistant = 'CompactdContextAssistant',
  reasoning = 'CompactdContextReasoning', ['tool-calls'] = 'CompactdContextToolCalls',
  ['tool-results'] = 'CompactdContextToolResults', media = 'CompactdContextMedia',
}
local links = {
  CompactdContextOutside = 'Special', CompactdContextSystem = 'Identifier', CompactdContextInjected = 'Constant',
  CompactdContextSummaries = 'String', CompactdContextUser = 'Type', CompactdContextAssistant = 'Function',
  CompactdContextReasoning = 'PreProc', CompactdContextToolCalls = 'Statement', CompactdContextToolResults = 'WarningMsg',
  CompactdContextMedia = 'Character', CompactdContextKept = 'Function', CompactdContextRemoved = 'ErrorMsg',
  CompactdContextTitle = 'Title', CompactdContextMuted = 'Comment',
}

local function define_highlights()
  for name, target in pairs(links) do
    vim.cmd(('highlight default link %s %s'):format(name, target))
  end
end

local function thousands(n)
  local s = tostring(math.floor((tonumber(n) or 0) + 0.5))
  local neg = s:sub(1, 1) == '-'
  if neg then s = s:sub(2) end
  local out = s:reverse():gsub('(%d%d%d)', '%1,'):reverse():gsub('^,', '')
  return (neg and '-' or '') .. out
end
M.thousands = thousands

local function short(n)
  n = tonumber(n) or 0
  if n >= 1e6 then return (('%.2f'):format(n / 1e6):gsub('%.?0+$', '')) .. 'M' end
  if n >= 1e4 then return ('%dk'):format(math.floor(n / 1e3 + 0.5)) end
  if n >= 1e3 then return (('%.1f'):format(n / 1e3):gsub('%.0$', '')) .. 'k' end
  return tostring(math.floor(n + 0.5))
end

function M.dollars(v)
  v = tonumber(v)
  if not v then return '?' end
  if v == 0 then return '$0' end
  if v < 0.0001 then return '<$0.0001' end
  if v < 0.01 then return ('$%.4f'):format(v) end
  if v < 1 then return ('$%.3f'):format(v) end
  return ('$%.2f'):format(v)
end

local function pct(n, w) return ('%.1f %%'):format(100 * (tonumber(n) or 0) / math.max(tonumber(w) or 1, 1)) end

-- pad(s, width) pads by display width (the glyphs are multibyte).
local function pad(s, width)
  local w = vim.fn.strdisplaywidth(s)
  if w >= width then return s end
  return s .. string.rep(' ', width - w)
end

local function lpad(s, width)
  local w = vim.fn.strdisplaywidth(s)
  if w >= width then return s end
  return string.rep(' ', width - w) .. s
end

-- render(data, width) → lines, highlights ({line, col_start, col_end, group}, byte columns,
-- 0-based lines) and turn_lines (line index → the turn's startLine in the transcript).
function M.render(data, width)
  width = width or 72
  local lines, hls, turn_lines = {}, {}, {}
  local function add(s, group)
    s = s:gsub('%s+$', '')
    lines[#lines + 1] = s
    if group then hls[#hls + 1] = { #lines - 1, 0, #s, group } end
  end
  local g = data.gauge or {}
  local b = g.breakdown
  local w = tonumber(g.contextWindow) or 1
  add(('%s / %s tokens · %d %% %s · %s'):format(thousands(g.tokens), thousands(w),
    math.floor(100 * (tonumber(g.tokens) or 0) / math.max(w, 1) + 0.5), tostring(g.level or ''), tostring(g.model or '')), 'CompactdContextTitle')

  -- The window as one bar: each category's share, '·' for what is free (an overfull window
  -- is drawn to its own size).
  local barw = width - 2
  local scale = math.max(w, tonumber(g.tokens) or 0, 1)
  if b and type(b.parts) == 'table' then
    local segs, cum = {}, 0
    local line = '['
    local col = #line
    for _, p in ipairs(b.parts) do
      local t = tonumber(p.tokens) or 0
      if t > 0 then
        local from = math.floor(barw * cum / scale + 0.5)
        cum = cum + t
        local to = math.min(math.floor(barw * cum / scale + 0.5), barw)
        local n = math.max(to - from, 0)
        if n > 0 then
          local chunk = string.rep(M.glyphs[p.category] or '#', n)
          segs[#segs + 1] = { col, col + #chunk, groups[p.category] }
          line = line .. chunk
          col = col + #chunk
        end
      end
    end
    local used = vim.fn.strdisplaywidth(line) - 1
    line = line .. string.rep('·', math.max(barw - used, 0)) .. ']'
    add(line)
    for _, s in ipairs(segs) do hls[#hls + 1] = { #lines - 1, s[1], s[2], s[3] } end

    for _, p in ipairs(b.parts) do
      local label = p.label or p.category
      local note = ''
      if p.category == 'outside' and (tonumber(p.tokens) or 0) > 0 then note = b.outside and b.outside.label or '' end
      if p.category == 'tool-results' and type(b.tools) == 'table' then
        local names = {}
        for i, t in ipairs(b.tools) do
          if i > 3 then break end
          names[#names + 1] = t.name .. ' ' .. short(t.tokens)
        end
        note = table.concat(names, ', ')
      end
      local glyph = M.glyphs[p.category] or '#'
      local s = (' %s %s %s %s  %s'):format(glyph, pad(label, 26), lpad(thousands(p.tokens), 9), lpad(pct(p.tokens, w), 7), note)
      add(s)
      hls[#hls + 1] = { #lines - 1, 1, 1 + #glyph, groups[p.category] }
    end
    for _, k in ipairs((b.outside and b.outside.known) or {}) do
      add(('   outside, %s: %s%s'):format(k.name or '', k.detail or '',
        (tonumber(k.tokens) or 0) > 0 and (' (' .. thousands(k.tokens) .. ' tokens)') or ''), 'CompactdContextMuted')
    end
    if b.outside and not b.outside.measured then
      add('   no reported usage: what the agent sends beside the transcript is not in this figure', 'CompactdContextMuted')
    end
  end
  if g.reach and g.reach ~= '' then add(g.reach .. '.') end
  if type(g.estimateError) == 'number' then
    add(('Estimate error %+.1f %% (%s)'):format(100 * g.estimateError, tostring(g.estimateErrorNote or '')), 'CompactdContextMuted')
  end
  if type(g.cost) == 'table' then
    local c = g.cost
    local bits = {}
    if (tonumber(c.responses) or 0) > 0 then bits[#bits + 1] = 'session so far ' .. M.dollars(c.session) end
    local nt = c.nextTurn or {}
    bits[#bits + 1] = ('next turn %s (%s uncached)'):format(M.dollars(nt.cached), M.dollars(nt.uncached))
    add(('Cost · %s: %s'):format(tostring(c.model), table.concat(bits, ' · ')))
  end

  add('')
  local dr = data.dryRun
  local strategies = dr and type(dr.strategies) == 'table' and table.concat(dr.strategies, ', ') or 'auto'
  add(('Tokens per turn  (█ kept  ░ removed by the dry run: %s)'):format(strategies), 'CompactdContextTitle')
  local turns = data.turns or {}
  local max = 1
  for _, t in ipairs(turns) do max = math.max(max, tonumber(t.tokens) or 0) end
  local tw = math.max(width - 30, 10)
  for _, t in ipairs(turns) do
    local tokens, removed = tonumber(t.tokens) or 0, math.min(tonumber(t.removed) or 0, tonumber(t.tokens) or 0)
    local n = math.floor(tw * tokens / max + 0.5)
    local r = math.min(math.floor(tw * removed / max + 0.5), n)
    if removed > 0 and r == 0 and n > 0 then r = 1 end
    local kept = string.rep('█', n - r)
    local gone = string.rep('░', r)
    local head = ('%4d '):format((tonumber(t.index) or 0) + 1)
    local prompt = t.prompt and t.prompt ~= '' and ('  ' .. t.prompt) or ''
    local s = head .. pad(kept .. gone, tw) .. ' ' .. lpad(thousands(tokens), 8) .. prompt
    add(s)
    hls[#hls + 1] = { #lines - 1, #head, #head + #kept, 'CompactdContextKept' }
    if r > 0 then hls[#hls + 1] = { #lines - 1, #head + #kept, #head + #kept + #gone, 'CompactdContextRemoved' } end
    turn_lines[#lines - 1] = tonumber(t.startLine) or 0
  end
  if #turns == 0 then add('  no turns yet', 'CompactdContextMuted') end

  add('')
  if dr then
    local saved = (tonumber(dr.tokensBefore) or 0) - (tonumber(dr.tokensAfter) or 0)
    add(('Dry run (%s): transcript %s → %s tokens · window after ≈ %s (%s)'):format(strategies, thousands(dr.tokensBefore),
      thousands(dr.tokensAfter), thousands(dr.after), pct(dr.after, w)))
    if type(dr.savingPerTurn) == 'table' and saved > 0 then
      add(('  saves %s per turn (%s uncached)'):format(M.dollars(dr.savingPerTurn.cached), M.dollars(dr.savingPerTurn.uncached)))
    end
    if type(dr.economics) == 'table' and saved > 0 then add('  ' .. tostring(dr.economics.line)) end
    if dr.why and dr.why ~= '' then add('Why so little: ' .. dr.why, 'WarningMsg') end
    if type(dr.tradeOff) == 'table' and #dr.tradeOff > 0 then
      add('Trade-off (:CompactdCompactToFit budget=N): tokens after, share of the names kept', 'CompactdContextTitle')
      for _, p in ipairs(dr.tradeOff) do
        add(('  %s → %s  %3d %%%s'):format(lpad(thousands(p.budget), 8), lpad(thousands(p.tokens), 8),
          math.floor(100 * (tonumber(p.kept) or 0) + 0.5), p.knee and '  ← knee' or ''))
      end
    end
  elseif data.dryRunError then
    add('Dry run: ' .. tostring(data.dryRunError), 'CompactdContextMuted')
  else
    add('Dry run: computing…', 'CompactdContextMuted')
  end
  -- Where the agents reach compactd: its MCP server (recall) and Claude Code's hooks.
  local x = data.integrations
  if type(x) == 'table' then
    add('')
    add("In the agents' loops", 'CompactdContextTitle')
    if type(x.mcp) == 'table' and #x.mcp > 0 then
      for _, m in ipairs(x.mcp) do
        add(('  MCP server: %s (%s) %s%s'):format(tostring(m.agent), tostring(m.scope), tostring(m.path),
          m.current and '' or ' · outdated: compactd mcp install ' .. tostring(m.agent)))
      end
    else
      add('  MCP server: not installed (compactd mcp install AGENT)', 'CompactdContextMuted')
    end
    if type(x.hooks) == 'table' and #x.hooks > 0 then
      for _, k in ipairs(x.hooks) do
        add(('  Hooks: %s (%s) %s %s'):format(tostring(k.agent), tostring(k.scope),
          k.compaction and 'compactd is the compaction' or 'records before each compaction', tostring(k.path)))
      end
    else
      add(type(x.installHooks) == 'string' and ('  Hooks: not installed (' .. x.installHooks .. ')') or '  Hooks: none for this agent',
        'CompactdContextMuted')
    end
  end
  -- The agent's own compaction point, and its compactions with what each lost.
  local m = type(data.gauge) == 'table' and data.gauge.autoCompact or nil
  if type(m) == 'table' then
    add('')
    add('The agent ' .. tostring(m.text) .. (m.rule and (' — ' .. tostring(m.rule)) or ''))
  end
  if type(data.agentCompactions) == 'table' and #data.agentCompactions > 0 then
    add('')
    add("The agent's own compactions", 'CompactdContextTitle')
    for _, c in ipairs(data.agentCompactions) do add(('  line %d: %s'):format((tonumber(c.line) or 0) + 1, tostring(c.summary))) end
    if type(data.health) == 'table' and data.health.loop then add('⚠ ' .. tostring(data.health.warning), 'WarningMsg') end
  end
  add('')
  add('q close · r refresh · <CR> go to the turn', 'CompactdContextMuted')
  return lines, hls, turn_lines
end

-- The float, while open.
local state = { win = nil, buf = nil, uri = nil, data = nil, turn_lines = {} }
M.state = state

local ns = vim.api.nvim_create_namespace('compactd_context')

local function is_open()
  return state.win and vim.api.nvim_win_is_valid(state.win)
end

function M.close()
  if is_open() then vim.api.nvim_win_close(state.win, true) end
  state.win, state.buf = nil, nil
end

local function draw(data)
  state.data = data
  if not is_open() then return end
  local width = vim.api.nvim_win_get_width(state.win)
  local lines, hls, turn_lines = M.render(data, width - 1)
  state.turn_lines = turn_lines
  vim.bo[state.buf].modifiable = true
  vim.api.nvim_buf_set_lines(state.buf, 0, -1, false, lines)
  vim.bo[state.buf].modifiable = false
  vim.api.nvim_buf_clear_namespace(state.buf, ns, 0, -1)
  for _, h in ipairs(hls) do
    if h[4] then pcall(vim.api.nvim_buf_add_highlight, state.buf, ns, h[4], h[1], h[2], h[3]) end
  end
  local height = math.min(#lines, math.max(vim.o.lines - 6, 5))
  pcall(vim.api.nvim_win_set_height, state.win, height)
end

-- request(dry_run): asks the server; draws the answer if the float is still open.
local function request(dry_run)
  local compactd = require('compactd')
  local client = compactd.client()
  if not client or not state.uri then return end
  compactd._request(client, 'compactd/context', { uri = state.uri, dryRun = dry_run }, function(err, result)
    if err then
      if is_open() then
        draw({ gauge = (state.data and state.data.gauge) or {}, turns = {}, dryRunError = err.message or vim.inspect(err) })
      end
      return
    end
    if type(result) == 'table' then
      M.last = result
      draw(result)
    end
  end)
end

function M.refresh()
  request(false)
  request(true)
end

-- open(uri): the float for a conversation; the transcript's window keeps its place.
function M.open(uri)
  define_highlights()
  if not uri then
    vim.notify('compactd: no conversation: open a transcript first', vim.log.levels.ERROR)
    return nil
  end
  M.close()
  state.uri = uri
  state.source_win = vim.api.nvim_get_current_win()
  state.buf = vim.api.nvim_create_buf(false, true)
  vim.bo[state.buf].bufhidden = 'wipe'
  vim.bo[state.buf].filetype = 'compactd-context'
  local width = math.min(math.max(vim.o.columns - 8, 40), 100)
  local height = math.min(24, math.max(vim.o.lines - 6, 5))
  state.win = vim.api.nvim_open_win(state.buf, true, {
    relative = 'editor', width = width, height = height,
    row = math.floor((vim.o.lines - height) / 2) - 1, col = math.floor((vim.o.columns - width) / 2),
    style = 'minimal', border = 'rounded',
  })
  vim.wo[state.win].wrap = false
  local gauge = require('compactd.gauge').get(uri)
  draw({ gauge = gauge or {}, turns = {} })
  local opts = { buffer = state.buf, nowait = true, silent = true }
  vim.keymap.set('n', 'q', M.close, opts)
  vim.keymap.set('n', '<Esc>', M.close, opts)
  vim.keymap.set('n', 'r', M.refresh, opts)
  vim.keymap.set('n', '<CR>', function()
    local line = state.turn_lines[vim.api.nvim_win_get_cursor(0)[1] - 1]
    if not line then return end
    local target = vim.uri_to_fname(state.uri)
    local src = state.source_win
    M.close()
    if src and vim.api.nvim_win_is_valid(src) then vim.api.nvim_set_current_win(src) end
    if vim.api.nvim_buf_get_name(0) ~= target then vim.cmd('edit ' .. vim.fn.fnameescape(target)) end
    pcall(vim.api.nvim_win_set_cursor, 0, { line + 1, 0 })
  end, opts)
  M.refresh()
  return state.win
end

return M
