import AccountCircleOutlined from '@mui/icons-material/AccountCircleOutlined';
import Logout from '@mui/icons-material/Logout';
import Divider from '@mui/material/Divider';
import IconButton from '@mui/material/IconButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListSubheader from '@mui/material/ListSubheader';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useId, useState } from 'react';
import type { CurrentUser } from '../../types';

export interface AccountMenuProps {
  user: CurrentUser;
  onSignOut: () => void | Promise<void>;
}

/** The account button: who is signed in, their role, and Sign out. */
export default function AccountMenu({ user, onSignOut }: AccountMenuProps) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const menuId = useId();
  const open = anchor !== null;
  return (
    <>
      <Tooltip title="Account">
        <IconButton
          aria-label="Account"
          aria-haspopup="menu"
          aria-controls={open ? menuId : undefined}
          aria-expanded={open ? 'true' : undefined}
          onClick={(e) => setAnchor(e.currentTarget)}
          color="inherit"
        >
          <AccountCircleOutlined />
        </IconButton>
      </Tooltip>
      <Menu
        id={menuId}
        anchorEl={anchor}
        open={open}
        onClose={() => setAnchor(null)}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
      >
        <ListSubheader sx={{ lineHeight: 1.5, py: 1, maxWidth: 280 }}>
          <Typography variant="body2" color="text.primary" noWrap title={user.email}>
            {user.email}
          </Typography>
          <Typography variant="caption" color="text.secondary" component="div">
            Role: {user.role}
          </Typography>
        </ListSubheader>
        <Divider />
        <MenuItem
          onClick={() => {
            setAnchor(null);
            void onSignOut();
          }}
        >
          <ListItemIcon>
            <Logout fontSize="small" />
          </ListItemIcon>
          Sign out
        </MenuItem>
      </Menu>
    </>
  );
}
