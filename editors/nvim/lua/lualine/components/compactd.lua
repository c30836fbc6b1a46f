-- lualine component: sections = { lualine_x = { 'compactd' } }
-- Shows the gauge of the current conversation (or the active one), coloured by level.
local M = require('lualine.component'):extend()

local colors = { warn = 'DiagnosticWarn', critical = 'DiagnosticError' }

-- A click offers the conversation's actions (compact, history, continue in another agent).
function M:init(options)
  options = options or {}
  if options.on_click == nil then
    options.on_click = function() require('compactd').actions() end
  end
  M.super.init(self, options)
end

function M:update_status()
  local compactd = require('compactd')
  local group = colors[compactd.level()]
  local text = compactd.statusline()
  if text == '' then return '' end
  if group then return '%#' .. group .. '#' .. text end
  return text
end

return M
