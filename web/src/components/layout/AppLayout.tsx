import Box from '@mui/material/Box';
import { Outlet } from 'react-router';
import AppHeader from './AppHeader';

/** The signed-in pages: the header above, the page filling the rest of the window. */
export default function AppLayout() {
  return (
    <Box sx={{ height: '100dvh', display: 'flex', flexDirection: 'column', bgcolor: 'background.default' }}>
      <AppHeader />
      <Box component="main" sx={{ flex: 1, minHeight: 0, display: 'flex' }}>
        <Outlet />
      </Box>
    </Box>
  );
}
