import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider, type PaletteMode } from '@mui/material/styles';
import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import {
  ColorModeContext,
  createAppTheme,
  readStoredColorMode,
  storeColorMode,
  systemColorMode,
} from '../../theme';

/** The theme for the chosen colour mode; follows the system until the person picks one. */
export default function ColorModeProvider({ children }: { children: ReactNode }) {
  const [chosen, setChosen] = useState<PaletteMode | null>(() => readStoredColorMode());
  const [system, setSystem] = useState<PaletteMode>(() => systemColorMode());

  useEffect(() => {
    const query = globalThis.matchMedia?.('(prefers-color-scheme: dark)');
    if (!query) return;
    const onChange = () => setSystem(query.matches ? 'dark' : 'light');
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);

  const mode = chosen ?? system;
  const toggle = useCallback(() => {
    const next = mode === 'dark' ? 'light' : 'dark';
    storeColorMode(next);
    setChosen(next);
  }, [mode]);
  const theme = useMemo(() => createAppTheme(mode), [mode]);
  const value = useMemo(() => ({ mode, toggle }), [mode, toggle]);

  return (
    <ColorModeContext.Provider value={value}>
      <ThemeProvider theme={theme}>
        <CssBaseline enableColorScheme />
        {children}
      </ThemeProvider>
    </ColorModeContext.Provider>
  );
}
