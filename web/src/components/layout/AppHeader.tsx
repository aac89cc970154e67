import SmartToyOutlined from '@mui/icons-material/SmartToyOutlined';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Toolbar from '@mui/material/Toolbar';
import { Link as RouterLink } from 'react-router';
import { useAuth } from '../../auth/AuthContext';
import AccountMenu from './AccountMenu';
import ThemeToggle from './ThemeToggle';

/** The bar above every page: the title, the colour mode, and the account menu when signed in. */
export default function AppHeader() {
  const { user, signOut } = useAuth();
  return (
    <AppBar position="static" sx={{ borderBottom: 1, borderColor: 'divider', bgcolor: 'background.paper' }}>
      <Toolbar variant="dense" sx={{ gap: 1 }}>
        <SmartToyOutlined color="primary" aria-hidden />
        <Link component={RouterLink} to="/agent" variant="h6" underline="none" color="text.primary" sx={{ fontWeight: 600 }}>
          Data Agent
        </Link>
        <Box sx={{ flex: 1 }} />
        <ThemeToggle />
        {user && <AccountMenu user={user} onSignOut={signOut} />}
      </Toolbar>
    </AppBar>
  );
}
