// The page's one theme: light and dark palettes, the few sizes the layout shares, and the
// colour mode (the person's choice in localStorage, else the system's preference).

import { createTheme, type PaletteMode, type Theme } from '@mui/material/styles';
import { createContext, useContext } from 'react';

export const COLOR_MODE_STORAGE_KEY = 'dataagent.colorMode';

/** The chat list's width at `md` and up (seed 000: 280 px). */
export const SIDEBAR_WIDTH = 280;

/** The MUI theme for one mode. */
export function createAppTheme(mode: PaletteMode): Theme {
  return createTheme({
    palette: {
      mode,
      primary: { main: mode === 'light' ? '#2563eb' : '#7aa7ff' },
      secondary: { main: mode === 'light' ? '#7c3aed' : '#b99cff' },
      ...(mode === 'dark'
        ? { background: { default: '#0f1115', paper: '#171a21' } }
        : { background: { default: '#f7f8fa', paper: '#ffffff' } }),
    },
    shape: { borderRadius: 8 },
    typography: {
      button: { textTransform: 'none', fontWeight: 600 },
    },
    components: {
      MuiAppBar: { defaultProps: { elevation: 0, color: 'default' } },
    },
  });
}

/** The mode saved by the toggle, if any. */
export function readStoredColorMode(): PaletteMode | null {
  try {
    const value = globalThis.localStorage?.getItem(COLOR_MODE_STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : null;
  } catch {
    return null; // storage blocked: follow the system
  }
}

export function storeColorMode(mode: PaletteMode): void {
  try {
    globalThis.localStorage?.setItem(COLOR_MODE_STORAGE_KEY, mode);
  } catch {
    // storage blocked: the choice lasts for this page only
  }
}

/** The system's preference (prefers-color-scheme). */
export function systemColorMode(): PaletteMode {
  return globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export interface ColorModeValue {
  mode: PaletteMode;
  toggle: () => void;
}

export const ColorModeContext = createContext<ColorModeValue>({ mode: 'light', toggle: () => undefined });

/** The current colour mode and its toggle (inside ColorModeProvider). */
export function useColorMode(): ColorModeValue {
  return useContext(ColorModeContext);
}
